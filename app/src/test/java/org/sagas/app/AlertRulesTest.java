package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * ops/prometheus/alerts.yml raises the states an operator must act on; Prometheus' own
 * {@code promtool} validates the rules and the config that loads them, and runs the rules' unit tests
 * (ops/prometheus/alerts.test.yml). The promtool tests are skipped where promtool is not installed.
 */
class AlertRulesTest {
    private static final String NO_PROMTOOL = "promtool not found on PATH: install Debian's prometheus package "
            + "(apt-get install prometheus) to validate ops/prometheus/alerts.yml";

    @Test
    void shouldAlertOnEachStateAnOperatorMustActOn() {
        Map<String, String> alerts = OpsQueries.alerts();

        assertThat(alerts.keySet()).contains("SagaBreakerOpen", "SagaPendingTooOld", "SagaIncidents",
                "SagaOutboxLag", "SagaKafkaDeadLetters", "SagaOutboxDeadLetters");
        // The pending TTL defaults to 15 min: the alert fires at half of it.
        assertThat(org.sagas.orchestrator.OrchestratorSettings.PENDING_TTL.defaultValue()).isEqualTo("900000");
        assertThat(alerts.get("SagaPendingTooOld")).endsWith("> 450");
        assertThat(OpsQueries.alertRules()).allSatisfy(rule -> {
            assertThat(map(rule.get("labels"))).as("%s", rule.get("alert")).containsKey("severity");
            assertThat(map(rule.get("annotations"))).as("%s", rule.get("alert"))
                    .containsKeys("summary", "description");
        });
        assertThat(OpsQueries.alertRules()).filteredOn(rule -> "SagaBreakerOpen".equals(rule.get("alert")))
                .singleElement().satisfies(rule -> assertThat(rule.get("for")).isEqualTo("5m"));
    }

    @Test
    void shouldPassPromtoolCheckRules() throws Exception {
        assertThat(promtool("check", "rules", "ops/prometheus/alerts.yml")).contains("SUCCESS");
    }

    @Test
    void shouldPassPromtoolCheckConfigWithTheRulesItLoads() throws Exception {
        assertThat(promtool("check", "config", "ops/prometheus.yml")).contains("1 rule files found");
    }

    @Test
    void shouldFireEachAlertAsItsUnitTestsExpect() throws Exception {
        assertThat(promtool("test", "rules", "ops/prometheus/alerts.test.yml")).contains("SUCCESS");
    }

    /** Runs promtool in the repository root and returns its output; fails the test on a non-zero exit. */
    private static String promtool(String... args) throws Exception {
        Optional<File> promtool = onPath("promtool");
        Assumptions.assumeTrue(promtool.isPresent(), NO_PROMTOOL);
        Process process = new ProcessBuilder(Stream.concat(Stream.of(promtool.get().getPath()), Stream.of(args))
                .toList()).directory(OpsQueries.ROOT.toFile()).redirectErrorStream(true).start();
        // promtool prints a few lines and exits: reading to the end cannot block on a full pipe.
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("promtool " + List.of(args) + " did not finish within 60 s");
        }
        assertThat(process.exitValue()).as("promtool %s:%n%s", List.of(args), output).isZero();
        return output;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> map(Object o) {
        return (Map<String, Object>) o;
    }

    private static Optional<File> onPath(String program) {
        String path = System.getenv("PATH");
        return path == null ? Optional.empty() : Stream.of(path.split(File.pathSeparator))
                .map(dir -> new File(dir, program)).filter(File::canExecute).findFirst();
    }
}
