package org.sagas.app.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.sagas.orchestrator.saga.IncidentCause;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code saga_incidents{cause}}: sagas that cannot go on without an operator, per cause, as the
 * engine counts them in PostgreSQL on a short period, so every process shows the same figure
 * whichever raised them. The saga package knows no metrics library; this binds its counts. A background job: {@link #start} then {@link #close}.
 * Thread-safe.
 */
public final class IncidentGauges implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(IncidentGauges.class);

    private final SagaEngine engine;
    private final Map<IncidentCause, AtomicLong> counts = new EnumMap<>(IncidentCause.class);
    private final ScheduledExecutorService scheduler = org.sagas.orchestrator.lifecycle.Threads.scheduler("incident-gauges");

    public IncidentGauges(SagaEngine engine, MeterRegistry registry) {
        this.engine = engine;
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
            Map<IncidentCause, Long> fresh = engine.incidentCounts();
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
