package org.sagas.app.metrics;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.sagas.orchestrator.saga.IncidentCause;
import org.sagas.orchestrator.saga.SagaEngine;

/**
 * {@code saga_incidents{cause}}: sagas that cannot go on without an operator, per cause, as the
 * engine counts them in PostgreSQL on a short period, so every process shows the same figure
 * whichever raised them. The saga package knows no metrics library; this binds its counts. {@link
 * #refresh} is the work of the {@code incident-gauges} periodic job (every
 * {@code SAGA_INCIDENT_GAUGES_PERIOD_MS}), which reports a refresh that fails. Thread-safe.
 */
public final class IncidentGauges {

    private final SagaEngine engine;
    private final Map<IncidentCause, AtomicLong> counts = new EnumMap<>(IncidentCause.class);

    public IncidentGauges(SagaEngine engine, MeterRegistry registry) {
        this.engine = engine;
        for (IncidentCause cause : IncidentCause.values()) {
            AtomicLong count = new AtomicLong();
            counts.put(cause, count);
            Gauge.builder("saga.incidents", count, AtomicLong::get).tag("cause", cause.name())
                    .description("Sagas that cannot go on without an operator").register(registry);
        }
    }

    /** Reads the counts now; when that fails, {@code saga_incidents} keeps its last values and this throws. */
    public void refresh() {
        Map<IncidentCause, Long> fresh = engine.incidentCounts();
        counts.forEach((cause, count) -> count.set(fresh.getOrDefault(cause, 0L)));
    }
}
