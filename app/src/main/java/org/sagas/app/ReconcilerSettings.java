package org.sagas.app;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.sagas.orchestrator.config.ConfigException;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;
import org.sagas.reconciler.ReconcilerConfig;

/**
 * The reconciliation jobs' settings (docs/design.md, "Reconciliation"), declared in {@link #TABLE}. Immutable.
 *
 * @param stateDir where Kafka Streams keeps its state; null for a fresh temporary directory
 */
record ReconcilerSettings(ReconcilerConfig config, Duration pullInterval, int standbys, Path stateDir,
        Duration gaugesPeriod) {

    private static final Set<String> RECONCILER = Set.of("reconciler");

    static final Setting<Duration> GRACE = Setting.millis("SAGA_RECONCILER_GRACE_MS", 30_000, 100, 86_400_000,
            RECONCILER, "how long a discrepancy about a known order must last before it is a finding");
    static final Setting<Duration> UNKNOWN_ORDER_GRACE = Setting.millis("SAGA_RECONCILER_UNKNOWN_ORDER_GRACE_MS",
            120_000, 100, 86_400_000, RECONCILER,
            "the same for a ledger entry whose order the reconciler has never seen (its events may lag)");
    static final Setting<Duration> REPLY_WINDOW = Setting.millis("SAGA_RECONCILER_REPLY_WINDOW_MS", 120_000, 100,
            86_400_000, RECONCILER, "a charge command without a payment reply for this long is a finding");
    static final Setting<Duration> PULL_INTERVAL = Setting.millis("SAGA_RECONCILER_PULL_INTERVAL_MS", 1_000, 10,
            3_600_000, RECONCILER, "how often the participants' ledger feeds are read");
    static final Setting<Duration> GAUGES_PERIOD = Setting.millis("SAGA_RECONCILER_GAUGES_PERIOD_MS", 5_000, 10,
            600_000, RECONCILER, "how often the stored findings are counted by kind and state for"
                    + " saga_reconciliation_findings");
    static final Setting<Integer> STANDBY_REPLICAS = Setting.integer("SAGA_RECONCILER_STANDBY_REPLICAS", 1, 0, 5,
            "replicas", RECONCILER, "warm copies of each reconciler task's state kept on other instances");
    static final Setting<String> STATE_DIR = Setting.text("SAGA_RECONCILER_STATE_DIR", "", RECONCILER,
            "the reconciler's local state (RocksDB); unset = <data dir>/reconciler, or a temp dir");

    /** The reconciliation jobs' settings. */
    static final SettingsTable TABLE = SettingsTable.of("Reconciliation (role reconciler)", List.of(GRACE,
            UNKNOWN_ORDER_GRACE, REPLY_WINDOW, PULL_INTERVAL, GAUGES_PERIOD, STANDBY_REPLICAS, STATE_DIR));

    static ReconcilerSettings from(Settings s) {
        SettingsTable.Values v;
        try {
            v = TABLE.read(s.raw()::get);
        } catch (ConfigException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
        Duration grace = v.get(GRACE);
        String dir = v.get(STATE_DIR);
        Path stateDir = !dir.isBlank() ? Path.of(dir) : s.dataDir() != null ? s.dataDir().resolve("reconciler") : null;
        // Due checks every 5 s (a scan of each task's timers, idle or not: docs/decisions/0029), more
        // often with a shorter grace (tests): a finding opens at most that long after its grace.
        ReconcilerConfig config = new ReconcilerConfig(grace, v.get(UNKNOWN_ORDER_GRACE), v.get(REPLY_WINDOW),
                Duration.ofMillis(Math.min(5_000, grace.toMillis() / 2 + 1)));
        return new ReconcilerSettings(config, v.get(PULL_INTERVAL), v.get(STANDBY_REPLICAS), stateDir,
                v.get(GAUGES_PERIOD));
    }
}
