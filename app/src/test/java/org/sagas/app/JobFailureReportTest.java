package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.SQLException;
import java.time.Duration;
import org.jdbi.v3.core.ConnectionException;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.lifecycle.Components;
import org.sagas.orchestrator.lifecycle.JobListener;
import org.sagas.orchestrator.lifecycle.PeriodicJob;

/**
 * A failing background job shows where an operator looks: its line in {@code /health/components}
 * (what {@code Product} serves: the process's {@link Components}' health as JSON) and
 * {@code saga_job_failures_total{job}} through the process's one {@link MicrometerJobListener}.
 */
class JobFailureReportTest {

    @Test
    void shouldShowAFailingJobInTheComponentsHealthAndCountItsFailures() throws Exception {
        // Given a process's components with a job whose database is down, reporting to the metrics
        SimpleMeterRegistry registry = new SimpleMeterRegistry();
        JobListener jobs = new MicrometerJobListener(registry);
        PeriodicJob failing = new PeriodicJob("incident-gauges", Duration.ofHours(1), Duration.ofHours(1), () -> {
            throw new ConnectionException(new SQLException("password authentication failed at db.internal"));
        }, jobs);
        PeriodicJob healthy = new PeriodicJob("order-gauges", Duration.ofHours(1), Duration.ofHours(1), () -> { }, jobs);
        try (Components components = new Components(Duration.ofSeconds(1))) {
            components.start(failing);
            components.start(healthy);

            // When each runs twice
            for (int i = 0; i < 2; i++) {
                failing.runOnce();
                healthy.runOnce();
            }

            // Then /health/components' answer says which one fails and how, without the text
            var health = Json.mapper().readTree(Json.write(components.health()));
            assertThat(health.at("/incident-gauges/state").asText()).isEqualTo("FAILING");
            assertThat(health.at("/incident-gauges/lastCause").asText()).isEqualTo("DATABASE");
            assertThat(health.at("/incident-gauges/failures").asLong()).isEqualTo(2);
            assertThat(health.at("/order-gauges/state").asText()).isEqualTo("RUNNING");
            assertThat(health.toString()).doesNotContain("password", "db.internal");
            // And the failure metric counted each failed run of that job only
            assertThat(registry.get("saga.job.failures").tag("job", "incident-gauges").counter().count())
                    .isEqualTo(2.0);
            assertThat(registry.find("saga.job.failures").tag("job", "order-gauges").counter()).isNull();
            assertThat(registry.get("saga.job.runs").tag("job", "order-gauges").timer().count()).isEqualTo(2);
        }
    }
}
