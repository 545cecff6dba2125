package org.sagas.orchestrator.saga;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.jdbi.v3.core.Jdbi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code saga_incidents{cause}}: sagas that cannot go on without an operator, per cause, counted
 * in PostgreSQL (through the partial incident index) on a short period, so every process shows the
 * same figure whichever raised them. A background job: {@link #start} then {@link #close}.
 * Thread-safe.
 */
public final class IncidentGauges implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IncidentGauges.class);

    private final Jdbi jdbi;
    private final Map<IncidentCause, AtomicLong> counts = new EnumMap<>(IncidentCause.class);
    private final ScheduledExecutorService scheduler = org.sagas.orchestrator.lifecycle.Threads.scheduler("incident-gauges");

    public IncidentGauges(Jdbi jdbi, MeterRegistry registry) {
        this.jdbi = jdbi;
        for (IncidentCause cause : IncidentCause.values()) {
            AtomicLong count = new AtomicLong();
            counts.put(cause, count);
            Gauge.builder("saga.incidents", count, AtomicLong::get).tag("cause", cause.name())
                    .description("Sagas that cannot go on without an operator").register(registry);
        }
    }

    public IncidentGauges start(Duration period) {
        scheduler.scheduleWithFixedDelay(this::refresh, 0, period.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** Reads the counts now. */
    public void refresh() {
        try {
            Map<IncidentCause, Long> fresh = new EnumMap<>(IncidentCause.class);
            jdbi.useHandle(h -> h.createQuery("SELECT incident_cause, count(*) FROM saga_instance"
                            + " WHERE incident_cause IS NOT NULL GROUP BY incident_cause")
                    .map((rs, ctx) -> Map.entry(IncidentCause.valueOf(rs.getString(1)), rs.getLong(2)))
                    .forEach(e -> fresh.put(e.getKey(), e.getValue())));
            counts.forEach((cause, count) -> count.set(fresh.getOrDefault(cause, 0L)));
        } catch (RuntimeException e) {
            log.warn("could not count incidents; saga_incidents keeps its last values: {}", e.toString());
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
