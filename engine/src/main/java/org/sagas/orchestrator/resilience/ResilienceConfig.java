package org.sagas.orchestrator.resilience;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * One dependency's resilience stack: its name, its timeout and the layers it has, one config per
 * policy. An absent layer is off: no retry config means one attempt per call, no breaker config
 * means no breaker, no bulkhead config means no limit on calls in flight. Immutable and
 * thread-safe; start from {@link #inventoryDefaults()} or {@link #paymentDefaults()}, which state
 * every value of their dependency, or build one with {@link #builder(String)}. Environment
 * variables are read into one by {@link ResilienceSettings}.
 *
 * @param dependency name of the dependency, as reported to the {@link ResilienceListener}
 * @param timeout the timeout layer, always present
 * @param retry the retry layer, with its backoff and budget; empty: one attempt per call
 * @param breaker the circuit breaker layer; empty: none
 * @param bulkhead the bulkhead layer; empty: none
 */
public record ResilienceConfig(String dependency, TimeoutConfig timeout, Optional<RetryConfig> retry,
        Optional<BreakerConfig> breaker, Optional<BulkheadConfig> bulkhead) {

    /**
     * Validates the composition; each policy config validated itself when built.
     *
     * @throws IllegalArgumentException if {@code dependency} is blank
     * @throws NullPointerException naming a missing component
     */
    public ResilienceConfig {
        if (ConfigChecks.required("dependency", dependency).isBlank()) {
            throw new IllegalArgumentException("dependency must not be blank");
        }
        ConfigChecks.required("timeout", timeout);
        ConfigChecks.required("retry", retry);
        ConfigChecks.required("breaker", breaker);
        ConfigChecks.required("bulkhead", bulkhead);
    }

    /**
     * Returns a builder for {@code dependency} with no timeout yet and no other layer.
     *
     * @throws NullPointerException if {@code dependency} is null
     */
    public static Builder builder(String dependency) {
        return new Builder(ConfigChecks.required("dependency", dependency));
    }

    /**
     * The inventory service (docs/design.md, "Resilience parameters"): 300 ms per attempt, don't call with less than
     * 20 ms left; 3 attempts, full jitter 50 ms base / 200 ms cap, retries at most 10% of calls
     * from a budget of 10; opens at 50% failures over at least 20 calls in 10 s, open 10 s, 3
     * half-open trials; 24 permits with 50 ms wait.
     */
    public static ResilienceConfig inventoryDefaults() {
        return builder("inventory")
                .timeout(TimeoutConfig.builder()
                        .attemptTimeout(Duration.ofMillis(300))
                        .minimumUsefulBudget(Duration.ofMillis(20))
                        .build())
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoffBase(Duration.ofMillis(50))
                        .backoffCap(Duration.ofMillis(200))
                        .budgetRatio(0.1)
                        .budgetInitial(10)
                        .build())
                .breaker(BreakerConfig.builder()
                        .failureRateThresholdPercent(50)
                        .minimumCalls(20)
                        .failureWindow(Duration.ofSeconds(10))
                        .openDuration(Duration.ofSeconds(10))
                        .halfOpenTrials(3)
                        .build())
                .bulkhead(BulkheadConfig.builder()
                        .permits(24)
                        .maxWait(Duration.ofMillis(50))
                        .build())
                .build();
    }

    /**
     * The payment provider (docs/design.md, "Resilience parameters"): 2 s per attempt, don't call with less than 50 ms
     * left; 3 attempts, full jitter 200 ms base / 2 s cap, retries at most 10% of calls from a
     * budget of 10; opens at 50% failures over at least 10 calls in 10 s, open 10 s, 3 half-open
     * trials; 16 permits with 100 ms wait.
     */
    public static ResilienceConfig paymentDefaults() {
        return builder("payment")
                .timeout(TimeoutConfig.builder()
                        .attemptTimeout(Duration.ofSeconds(2))
                        .minimumUsefulBudget(Duration.ofMillis(50))
                        .build())
                .retry(RetryConfig.builder()
                        .maxAttempts(3)
                        .backoffBase(Duration.ofMillis(200))
                        .backoffCap(Duration.ofSeconds(2))
                        .budgetRatio(0.1)
                        .budgetInitial(10)
                        .build())
                .breaker(BreakerConfig.builder()
                        .failureRateThresholdPercent(50)
                        .minimumCalls(10)
                        .failureWindow(Duration.ofSeconds(10))
                        .openDuration(Duration.ofSeconds(10))
                        .halfOpenTrials(3)
                        .build())
                .bulkhead(BulkheadConfig.builder()
                        .permits(16)
                        .maxWait(Duration.ofMillis(100))
                        .build())
                .build();
    }

    /**
     * The fraud screening service, called by version 2 of the orders saga (docs/design.md,
     * "Resilience parameters"): 300 ms per attempt, don't call with less than 20 ms left; 2
     * attempts, full jitter 50 ms base / 200 ms cap, retries at most 10% of calls from a budget of
     * 10; opens at 50% failures over at least 10 calls in 10 s, open 5 s, 3 half-open trials; 16
     * permits with 50 ms wait. A screening reads and changes nothing, so it is cheaper to retry than
     * a reservation, and its outage is noticed after fewer calls.
     */
    public static ResilienceConfig fraudDefaults() {
        return builder("fraud")
                .timeout(TimeoutConfig.builder()
                        .attemptTimeout(Duration.ofMillis(300))
                        .minimumUsefulBudget(Duration.ofMillis(20))
                        .build())
                .retry(RetryConfig.builder()
                        .maxAttempts(2)
                        .backoffBase(Duration.ofMillis(50))
                        .backoffCap(Duration.ofMillis(200))
                        .budgetRatio(0.1)
                        .budgetInitial(10)
                        .build())
                .breaker(BreakerConfig.builder()
                        .failureRateThresholdPercent(50)
                        .minimumCalls(10)
                        .failureWindow(Duration.ofSeconds(10))
                        .openDuration(Duration.ofSeconds(5))
                        .halfOpenTrials(3)
                        .build())
                .bulkhead(BulkheadConfig.builder()
                        .permits(16)
                        .maxWait(Duration.ofMillis(50))
                        .build())
                .build();
    }

    /** Returns a builder preset to this configuration. */
    public Builder toBuilder() {
        Builder builder = new Builder(dependency).timeout(timeout);
        retry.ifPresent(builder::retry);
        breaker.ifPresent(builder::breaker);
        bulkhead.ifPresent(builder::bulkhead);
        return builder;
    }

    /** Returns a copy with one attempt per call. */
    public ResilienceConfig withoutRetries() {
        return new ResilienceConfig(dependency, timeout, Optional.empty(), breaker, bulkhead);
    }

    /** Returns a copy without the circuit breaker layer. */
    public ResilienceConfig withoutBreaker() {
        return new ResilienceConfig(dependency, timeout, retry, Optional.empty(), bulkhead);
    }

    /** Returns a copy without the bulkhead layer. */
    public ResilienceConfig withoutBulkhead() {
        return new ResilienceConfig(dependency, timeout, retry, breaker, Optional.empty());
    }

    /**
     * Mutable builder for {@link ResilienceConfig}; not thread-safe. It has no defaults: the
     * timeout must be set, and each other layer is present only once set.
     */
    public static final class Builder {
        private String dependency;
        private TimeoutConfig timeout;
        private RetryConfig retry;
        private BreakerConfig breaker;
        private BulkheadConfig bulkhead;

        private Builder(String dependency) {
            this.dependency = dependency;
        }

        /** Sets the dependency's name. */
        public Builder dependency(String value) {
            dependency = value;
            return this;
        }

        /** Sets the timeout layer. */
        public Builder timeout(TimeoutConfig value) {
            timeout = Objects.requireNonNull(value, "timeout");
            return this;
        }

        /** Adds the retry layer, or replaces its config. */
        public Builder retry(RetryConfig value) {
            retry = Objects.requireNonNull(value, "retry");
            return this;
        }

        /** Adds the circuit breaker layer, or replaces its config. */
        public Builder breaker(BreakerConfig value) {
            breaker = Objects.requireNonNull(value, "breaker");
            return this;
        }

        /** Adds the bulkhead layer, or replaces its config. */
        public Builder bulkhead(BulkheadConfig value) {
            bulkhead = Objects.requireNonNull(value, "bulkhead");
            return this;
        }

        /** Removes the retry layer: one attempt per call. */
        public Builder withoutRetries() {
            retry = null;
            return this;
        }

        /** Removes the circuit breaker layer. */
        public Builder withoutBreaker() {
            breaker = null;
            return this;
        }

        /** Removes the bulkhead layer. */
        public Builder withoutBulkhead() {
            bulkhead = null;
            return this;
        }

        /**
         * Returns the validated configuration.
         *
         * @throws IllegalArgumentException if the dependency's name is blank
         * @throws NullPointerException if the name or the timeout was never set
         */
        public ResilienceConfig build() {
            return new ResilienceConfig(dependency, ConfigChecks.required("timeout", timeout),
                    Optional.ofNullable(retry), Optional.ofNullable(breaker), Optional.ofNullable(bulkhead));
        }
    }
}
