package org.sagas.reconciler;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;

/**
 * {@code saga_reconciliation_findings{kind,state}}: the stored findings by kind and state, read from
 * {@code reconciliation_finding} every few seconds (so every instance reports the same, whole
 * picture). {@link #refresh} is the work of the {@code finding-gauges} periodic job, which reports a
 * refresh that fails. Thread-safe.
 */
public final class FindingGauges {

    private final Jdbi jdbi;
    private final Map<FindingKind, Map<FindingState, AtomicLong>> counts = new EnumMap<>(FindingKind.class);

    public FindingGauges(Jdbi jdbi, MeterRegistry registry) {
        this.jdbi = jdbi;
        for (FindingKind kind : FindingKind.values()) {
            Map<FindingState, AtomicLong> byState = new EnumMap<>(FindingState.class);
            for (FindingState state : FindingState.values()) {
                AtomicLong value = new AtomicLong();
                byState.put(state, value);
                Gauge.builder("saga.reconciliation.findings", value, AtomicLong::get).tag("kind", kind.name())
                        .tag("state", state.name()).description("Reconciliation findings stored, by kind and state")
                        .register(registry);
            }
            counts.put(kind, byState);
        }
    }

    /** Reads the counts now; when that fails, the gauges keep their last values and this throws. */
    public void refresh() {
        Map<String, Long> read = new java.util.HashMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT kind, state, count(*) AS n FROM reconciliation_finding"
                + " GROUP BY kind, state").map((rs, ctx) -> read.put(rs.getString("kind") + "/"
                + rs.getString("state"), rs.getLong("n"))).list());
        counts.forEach((kind, byState) -> byState.forEach((state, value) ->
                value.set(read.getOrDefault(kind + "/" + state, 0L))));
    }
}
