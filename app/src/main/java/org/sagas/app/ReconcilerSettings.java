package org.sagas.app;

import java.nio.file.Path;
import java.time.Duration;
import org.sagas.reconciler.ReconcilerConfig;

/**
 * The reconciler role's settings (SAGA_RECONCILER_*, declared in {@link Settings#VARIABLES}),
 * parsed with errors naming the variable and its range. Immutable.
 *
 * @param stateDir where Kafka Streams keeps its state; null for a fresh temporary directory
 */
record ReconcilerSettings(ReconcilerConfig config, Duration pullInterval, int standbys, Path stateDir) {

    static ReconcilerSettings from(Settings s) {
        Duration grace = millis(s, "SAGA_RECONCILER_GRACE_MS", 100, 86_400_000);
        Duration unknown = millis(s, "SAGA_RECONCILER_UNKNOWN_ORDER_GRACE_MS", 100, 86_400_000);
        Duration reply = millis(s, "SAGA_RECONCILER_REPLY_WINDOW_MS", 100, 86_400_000);
        Duration pull = millis(s, "SAGA_RECONCILER_PULL_INTERVAL_MS", 10, 3_600_000);
        int standbys = (int) number(s, "SAGA_RECONCILER_STANDBY_REPLICAS", 0, 5);
        String dir = s.raw().getOrDefault("SAGA_RECONCILER_STATE_DIR", "");
        Path stateDir = !dir.isEmpty() ? Path.of(dir) : s.dataDir() != null ? s.dataDir().resolve("reconciler") : null;
        ReconcilerConfig config = new ReconcilerConfig(grace, unknown, reply, Duration.ofMillis(Math.min(1_000,
                grace.toMillis() / 2 + 1)), Duration.ofDays(1));
        return new ReconcilerSettings(config, pull, standbys, stateDir);
    }

    private static Duration millis(Settings s, String name, long min, long max) {
        return Duration.ofMillis(number(s, name, min, max));
    }

    private static long number(Settings s, String name, long min, long max) {
        String value = s.raw().getOrDefault(name, Settings.VARIABLES.get(name)[0]);
        try {
            long v = Long.parseLong(value.trim());
            if (v >= min && v <= max) {
                return v;
            }
        } catch (NumberFormatException e) {
            // falls through to the error naming the range
        }
        throw new ConfigurationError(name + " must be an integer from " + min + " to " + max + " (got '" + value + "')");
    }
}
