package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Every metric the Grafana dashboard and the Prometheus alert rules read is one the running
 * product exports on {@code /metrics}: a renamed meter breaks this test, not a dashboard at 3 am.
 */
@RealInfrastructure
class OpsMetricsIT {
    /** Prometheus' own {@code up}: the only series the dashboard and the rules read that no product exports. */
    private static final Set<String> NOT_FROM_THE_PRODUCT = Set.of("up");

    /** The background jobs of a process with every role, as {@code /health/components} names them. */
    private static final List<String> JOBS = List.of("order-gauges", "incident-gauges", "parked-resumer",
            "parked-resumer-fraud", "step-timeouts", "parked-expiry", "stalled-compensations", "retention", "payment-reconciler",
            "ledger-puller", "finding-gauges", "saga-versions");

    private TestProduct product;

    @BeforeEach
    void start(TestInfra infra) {
        product = TestProduct.shared(infra);
        product.healthy();
    }

    @Test
    void shouldExportEveryMetricTheDashboardAndTheAlertsRead() {
        // Given a product that answered one order, so meters made on first use (submit timers) exist
        String sku = "SKU-ops-" + UUID.randomUUID();
        product.stock(sku, 1);
        HttpResponse<String> accepted = product.submit(UUID.randomUUID().toString(),
                TestProduct.order("c-ops", sku, 1, 100));
        assertThat(accepted.statusCode()).isEqualTo(202);

        // When /metrics is scraped
        Metrics metrics = product.metrics();

        // Then each query of the dashboard and of the alert rules reads exported series only
        Map<String, String> queries = new LinkedHashMap<>();
        OpsQueries.dashboard().forEach((panel, expr) -> queries.put("dashboard " + panel, expr));
        OpsQueries.alerts().forEach((alert, expr) -> queries.put("alert " + alert, expr));
        Set<String> missing = new TreeSet<>();
        queries.forEach((where, expr) -> OpsQueries.metricNames(expr).stream()
                .filter(name -> !metrics.names().contains(name) && !NOT_FROM_THE_PRODUCT.contains(name))
                .forEach(name -> missing.add(name + " (" + where + ")")));
        assertThat(queries).hasSizeGreaterThan(20);
        assertThat(missing).as("metrics queried but not exported").isEmpty();
        assertThat(metrics.value("saga_submit_seconds_count", "status", "202")).isGreaterThanOrEqualTo(1);
    }

    @Test
    void shouldReportEveryBackgroundJobInTheComponentsHealthAndItsMetrics() {
        // Given the product with every role (its jobs' periods shortened where they are long)
        // When its jobs have run
        // Then each has its own line in /health/components, with a last run, and its runs are timed
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            JsonNode health = product.get(product.api("/health/components"));
            Metrics metrics = product.metrics();
            for (String job : JOBS) {
                assertThat(health.has(job)).as(job + " in /health/components: " + health).isTrue();
                assertThat(health.get(job).path("state").asText()).as(job).isIn("RUNNING", "FAILING");
                assertThat(health.get(job).path("lastRunAt").isNull()).as(job + " has run").isFalse();
                assertThat(metrics.value("saga_job_runs_seconds_count", "job", job)).as(job + " runs timed")
                        .isGreaterThanOrEqualTo(1);
            }
        });
    }
}
