package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.Reader;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.Yaml;

/**
 * The Grafana dashboard is well formed and tells the degraded-mode story on one screen. That each
 * metric it reads is one the product exports is {@link OpsMetricsIT}'s job.
 */
class DashboardTest {

    @Test
    void shouldReadTheMetricNamesOfAQuery() {
        assertThat(OpsQueries.metricNames("histogram_quantile(0.99, sum by (le) "
                + "(rate(saga_submit_seconds_bucket{status=~\"2..\"}[$__rate_interval])))"))
                .containsExactly("saga_submit_seconds_bucket");
        assertThat(OpsQueries.metricNames("clamp_min(max(-deriv(saga_orders{status=\"PENDING_CONFIRMATION\"}[1m])), 0)"
                + " or vector(1e3) unless on (job) up offset 5m"))
                .containsExactly("saga_orders", "up");
        assertThat(OpsQueries.metricNames("sum(max by (cause) (saga_incidents)) / ignoring(x) group_left a_b:c"))
                .containsExactly("saga_incidents", "a_b:c");
    }

    @Test
    void shouldQueryEveryPartOfTheDegradedModeStory() {
        Map<String, String> queries = OpsQueries.dashboard();
        List<String> names = new ArrayList<>();
        queries.values().forEach(expr -> names.addAll(OpsQueries.metricNames(expr)));

        assertThat(queries).allSatisfy((panel, expr) -> assertThat(OpsQueries.metricNames(expr))
                .as("metrics read by %s: %s", panel, expr).isNotEmpty());
        assertThat(names).contains(
                "saga_submit_seconds_count", "saga_submit_seconds_bucket", // submit rate and latency
                "saga_circuit_state", // breaker state
                "saga_fallback_total", // fallbacks
                "saga_orders", "saga_pending_oldest_age_seconds", // pending and its age (and resume)
                "saga_incidents", // incidents
                "outbox_oldest_age_seconds", // outbox lag
                "saga_consumer_retries_total", // consumers
                "saga_reconciliation_findings"); // findings
    }

    @Test
    void shouldFitOnOneScreenWithoutOverlappingPanels() {
        List<JsonNode> panels = OpsQueries.panels(OpsQueries.readJson(OpsQueries.DASHBOARD));
        boolean[][] taken = new boolean[40][24];

        for (JsonNode panel : panels) {
            JsonNode grid = panel.path("gridPos");
            int x = grid.path("x").asInt();
            int y = grid.path("y").asInt();
            int w = grid.path("w").asInt();
            int h = grid.path("h").asInt();
            assertThat(x + w).as("%s fits the 24 columns", panel.path("title")).isLessThanOrEqualTo(24);
            // 28 grid rows of ~30 px: one 1080p screen below Grafana's header.
            assertThat(y + h).as("%s on the first screen", panel.path("title")).isLessThanOrEqualTo(28);
            for (int row = y; row < y + h; row++) {
                for (int column = x; column < x + w; column++) {
                    assertThat(taken[row][column]).as("%s overlaps another panel", panel.path("title")).isFalse();
                    taken[row][column] = true;
                }
            }
        }
    }

    @Test
    @SuppressWarnings("unchecked")
    void shouldUseTheProvisionedDataSourceInEveryPanel() throws Exception {
        Map<String, Object> provisioning;
        try (Reader reader = Files.newBufferedReader(
                OpsQueries.ROOT.resolve("ops/grafana/provisioning/datasources/prometheus.yml"))) {
            provisioning = new Yaml().load(reader);
        }
        Map<String, Object> source = ((List<Map<String, Object>>) provisioning.get("datasources")).get(0);
        JsonNode dashboard = OpsQueries.readJson(OpsQueries.DASHBOARD);

        assertThat(source).containsEntry("type", "prometheus").containsEntry("url", "http://prometheus:9090");
        assertThat(dashboard.path("uid").asText()).isNotBlank();
        assertThat(OpsQueries.panels(dashboard)).isNotEmpty().allSatisfy(panel -> {
            assertThat(panel.path("datasource").path("uid").asText()).isEqualTo(source.get("uid"));
            assertThat(panel.path("targets")).isNotEmpty();
        });
    }
}
