package org.sagas.app.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.resilience.Deadline;
import org.sagas.orchestrator.resilience.DependencyUnavailable;
import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;
import org.sagas.orchestrator.resilience.Permit;
import org.sagas.orchestrator.resilience.Priority;
import org.sagas.orchestrator.resilience.PriorityShedder;
import org.sagas.orchestrator.resilience.ResilienceConfig;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.resilience.TransientFailure;

class MicrometerResilienceListenerTest {

    private final PrometheusMeterRegistry prometheus = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final MicrometerResilienceListener listener = new MicrometerResilienceListener(prometheus);
    private final AtomicInteger attempts = new AtomicInteger();

    /** Inventory's stack with a 1 ms backoff, and a breaker that two calls decide and that stays open 200 ms. */
    private static ResilienceConfig fastInventory() {
        ResilienceConfig inventory = ResilienceConfig.inventoryDefaults();
        return inventory.toBuilder()
                .retry(inventory.retry().orElseThrow().toBuilder()
                        .backoffBase(Duration.ofMillis(1)).backoffCap(Duration.ofMillis(1)).build())
                .breaker(inventory.breaker().orElseThrow().toBuilder()
                        .minimumCalls(2).openDuration(Duration.ofMillis(200)).build())
                .build();
    }

    private String answerAfterOneTransientFailure(Duration timeout) {
        if (attempts.incrementAndGet() == 1) {
            throw new TransientFailure("timeout");
        }
        return "reserved";
    }

    private double value(String name) {
        return prometheus.get(name).tag("dependency", "inventory").meter().measure().iterator().next().getValue();
    }

    @Test
    void shouldExposeContractMetricNamesInPrometheus() {
        // Given a stack bound to Prometheus and a call that needed one retry
        ResilientDependency dependency = ResilientDependency.create(fastInventory(), listener);
        dependency.call(Deadline.after(Duration.ofSeconds(5)), this::answerAfterOneTransientFailure);

        // When scraped
        String scrape = prometheus.scrape();

        // Then the names of the public contract appear, tagged with the dependency
        assertThat(scrape)
                .contains("saga_circuit_state{dependency=\"inventory\"} 0")
                .contains("saga_bulkhead_in_use{dependency=\"inventory\"} 0")
                .contains("saga_retries_total{dependency=\"inventory\"} 1")
                .contains("saga_retry_budget_exhausted_total{dependency=\"inventory\"} 0")
                .contains("saga_circuit_rejections_total{dependency=\"inventory\"} 0");
    }

    @Test
    void shouldCountBreakerRejectionsAndReadStateFromStackAtEachScrape() {
        // Given a stack whose breaker two transient failures open
        ResilienceConfig config = fastInventory().withoutRetries();
        ResilientDependency dependency = ResilientDependency.create(config, listener);
        for (int i = 0; i < 2; i++) {
            assertThatThrownBy(() -> dependency.call(Deadline.after(Duration.ofSeconds(5)), timeout -> {
                throw new TransientFailure("503");
            })).isInstanceOf(DependencyUnavailable.class);
        }

        // When a call arrives while it is open
        assertThatThrownBy(() -> dependency.call(Deadline.after(Duration.ofSeconds(5)), timeout -> "reserved"))
                .isInstanceOf(DependencyUnavailable.class)
                .extracting(e -> ((DependencyUnavailable) e).reason()).isEqualTo(Reason.BREAKER_OPEN);

        // Then the rejection is counted, the gauge says open, and half-open once the open time passed
        assertThat(value("saga.circuit.rejections")).isEqualTo(1.0);
        assertThat(value("saga.circuit.state")).isEqualTo(2.0);
        await().atMost(Duration.ofSeconds(5)).until(() -> value("saga.circuit.state") == 1.0);
    }

    @Test
    void shouldCountRetriesRefusedByBudget() {
        // Given a budget of no retry at all
        ResilienceConfig inventory = fastInventory();
        ResilienceConfig config = inventory.toBuilder().withoutBreaker()
                .retry(inventory.retry().orElseThrow().toBuilder().budgetInitial(0).budgetRatio(0).build())
                .build();
        ResilientDependency dependency = ResilientDependency.create(config, listener);

        // When a call fails transiently
        assertThatThrownBy(() -> dependency.call(Deadline.after(Duration.ofSeconds(5)),
                this::answerAfterOneTransientFailure)).isInstanceOf(DependencyUnavailable.class);

        // Then the refused retry is counted and none was made
        assertThat(value("saga.retry.budget.exhausted")).isEqualTo(1.0);
        assertThat(value("saga.retries")).isZero();
    }

    @Test
    void shouldRefuseSecondStackForSameDependencyInOneRegistry() {
        // Given a stack for inventory
        ResilientDependency.create(fastInventory(), listener);

        // When a second one is created in the same registry
        // Then it is refused: its gauges would report the first one's breaker
        assertThatThrownBy(() -> ResilientDependency.create(fastInventory(), listener))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inventory");
    }

    @Test
    void shouldKeepStacksOfTwoDependenciesApart() {
        // Given inventory and payment bound to one registry
        ResilientDependency.create(fastInventory(), listener);
        ResilientDependency.create(ResilienceConfig.paymentDefaults(), listener);

        // When scraped
        String scrape = prometheus.scrape();

        // Then each has its own series
        assertThat(scrape).contains("saga_circuit_state{dependency=\"payment\"} 0")
                .contains("saga_retries_total{dependency=\"payment\"} 0")
                .contains("saga_circuit_state{dependency=\"inventory\"} 0");
    }

    @Test
    void shouldExposeShedCountsWithLowerCasePriorityTag() {
        // Given a shedder bound to Prometheus and one low priority request shed
        PriorityShedder shedder = new PriorityShedder(1, 1, 1, listener);
        Permit held = shedder.tryEnter(Priority.HIGH).orElseThrow();
        shedder.tryEnter(Priority.LOW);

        // When scraped
        String scrape = prometheus.scrape();

        // Then the contract's name and tag appear, every priority from the start
        assertThat(scrape).contains("saga_shed_total{priority=\"low\"} 1");
        assertThat(scrape).contains("saga_shed_total{priority=\"high\"} 0");
        assertThat(scrape).contains("saga_shed_total{priority=\"normal\"} 0");
        held.close();
    }
}
