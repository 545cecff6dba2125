package org.sagas.reconciler;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.lifecycle.Threads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code saga_reconciliation_findings{kind,state}}: the stored findings by kind and state, read from
 * {@code reconciliation_finding} every few seconds (so every instance reports the same, whole
 * picture). A background job: {@link #start()} once, {@link #close()} once.
 */
public final class FindingGauges implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(FindingGauges.class);

    private final Jdbi jdbi;
    private final Map<FindingKind, Map<FindingState, AtomicLong>> counts = new EnumMap<>(FindingKind.class);
    private final ScheduledExecutorService scheduler = Threads.scheduler("finding-gauges");

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

    public FindingGauges start(Duration period) {
        scheduler.scheduleWithFixedDelay(this::refresh, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** Reads the counts now. */
    public void refresh() {
        try {
            Map<String, Long> read = new java.util.HashMap<>();
            jdbi.useHandle(h -> h.createQuery("SELECT kind, state, count(*) AS n FROM reconciliation_finding"
                    + " GROUP BY kind, state").map((rs, ctx) -> read.put(rs.getString("kind") + "/"
                    + rs.getString("state"), rs.getLong("n"))).list());
            counts.forEach((kind, byState) -> byState.forEach((state, value) ->
                    value.set(read.getOrDefault(kind + "/" + state, 0L))));
        } catch (RuntimeException e) {
            log.warn("reading the findings' counts failed; the gauges keep their last values: {}", e.toString());
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
