package org.sagas.orchestrator.resilience;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.function.IntSupplier;

/**
 * The meters of one dependency's stack. Names are Micrometer's dotted form of the Prometheus names
 * in the public contract: {@code saga.retries} is scraped as {@code saga_retries_total}.
 */
final class ResilienceMetrics {

    static final String DEPENDENCY = "dependency";
    static final String CIRCUIT_STATE = "saga.circuit.state";
    static final String CIRCUIT_REJECTIONS = "saga.circuit.rejections";
    static final String BULKHEAD_IN_USE = "saga.bulkhead.in.use";
    static final String RETRIES = "saga.retries";
    static final String RETRY_BUDGET_EXHAUSTED = "saga.retry.budget.exhausted";

    private final MeterRegistry registry;
    private final String dependency;
    private final Counter retries;
    private final Counter retryBudgetExhausted;
    private final Counter circuitRejections;

    /**
     * Registers the counters of {@code dependency}.
     *
     * @throws IllegalStateException if the registry already has a stack for that dependency: its
     *     gauges would keep reporting the first stack's breaker
     */
    ResilienceMetrics(MeterRegistry registry, String dependency) {
        if (registry.find(CIRCUIT_STATE).tag(DEPENDENCY, dependency).gauge() != null) {
            throw new IllegalStateException(
                    "a resilient dependency named '" + dependency + "' is already registered");
        }
        this.registry = registry;
        this.dependency = dependency;
        this.retries = counter(RETRIES, "Retries made after a transient failure");
        this.retryBudgetExhausted = counter(RETRY_BUDGET_EXHAUSTED,
                "Retries refused because the retry budget was spent");
        this.circuitRejections = counter(CIRCUIT_REJECTIONS,
                "Calls rejected by an open circuit breaker or a full set of half-open trials");
    }

    /** Registers the gauges, which read the live breaker and bulkhead when scraped. */
    void registerGauges(Breaker breaker, IntSupplier bulkheadInUse) {
        // Strong references: the registry must not report NaN because nobody else holds the stack.
        Gauge.builder(CIRCUIT_STATE, breaker, b -> b.state().gaugeValue())
                .description("Circuit breaker state: 0 closed, 1 half-open, 2 open")
                .tag(DEPENDENCY, dependency)
                .strongReference(true)
                .register(registry);
        Gauge.builder(BULKHEAD_IN_USE, bulkheadInUse, IntSupplier::getAsInt)
                .description("Bulkhead permits currently taken")
                .tag(DEPENDENCY, dependency)
                .strongReference(true)
                .register(registry);
    }

    Counter retries() {
        return retries;
    }

    Counter retryBudgetExhausted() {
        return retryBudgetExhausted;
    }

    Counter circuitRejections() {
        return circuitRejections;
    }

    private Counter counter(String name, String description) {
        return Counter.builder(name).description(description).tag(DEPENDENCY, dependency).register(registry);
    }
}
