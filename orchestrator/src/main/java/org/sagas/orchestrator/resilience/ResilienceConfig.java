package org.sagas.orchestrator.resilience;

import java.time.Duration;
import java.util.Objects;
import java.util.function.Function;

/**
 * Every setting of one dependency's resilience stack. Immutable and thread-safe; build one with
 * {@link #builder(String)}, start from {@link #inventoryDefaults()} or {@link #paymentDefaults()},
 * or apply environment overrides with {@link #fromEnvironment}.
 *
 * <p>The constructor validates every value and throws {@link IllegalArgumentException} naming
 * the offending setting, or {@link NullPointerException} for a missing one.
 *
 * @param dependency name of the dependency, the {@code dependency} tag of its metrics
 * @param attemptTimeout the most one attempt may take (capped further by the deadline)
 * @param maxAttempts attempts per call, the first included
 * @param backoffBase full-jitter backoff: ceiling before the first retry
 * @param backoffCap full-jitter backoff: the ceiling never grows beyond this
 * @param failureRateThresholdPercent the breaker opens at this failure rate or above
 * @param minimumCalls ... once at least this many calls were seen in the window
 * @param failureWindow ... over this sliding window
 * @param openDuration how long the breaker stays open before letting trials through
 * @param halfOpenTrials trials when half-open: this many successes close it, and at most this many
 *     run at once
 * @param bulkheadPermits the most calls in flight to the dependency
 * @param bulkheadMaxWait the longest a call waits for a bulkhead permit
 * @param retryBudgetRatio retry tokens each call earns (0.1: retries at most 10% of calls)
 * @param retryBudgetInitial retry tokens at start, also the most the budget can hold
 * @param minimumUsefulBudget below this much time left before the deadline, don't call
 * @param breakerEnabled whether the circuit breaker layer is present
 * @param bulkheadEnabled whether the bulkhead layer is present
 * @param retriesEnabled whether failed attempts are retried at all
 */
public record ResilienceConfig(
        String dependency,
        Duration attemptTimeout,
        int maxAttempts,
        Duration backoffBase,
        Duration backoffCap,
        int failureRateThresholdPercent,
        int minimumCalls,
        Duration failureWindow,
        Duration openDuration,
        int halfOpenTrials,
        int bulkheadPermits,
        Duration bulkheadMaxWait,
        double retryBudgetRatio,
        int retryBudgetInitial,
        Duration minimumUsefulBudget,
        boolean breakerEnabled,
        boolean bulkheadEnabled,
        boolean retriesEnabled) {

    /** Failsafe measures failure rates in buckets and refuses windows shorter than this. */
    private static final Duration SHORTEST_FAILURE_WINDOW = Duration.ofMillis(10);

    /** Validates every setting; see the class documentation. */
    public ResilienceConfig {
        if (Objects.requireNonNull(dependency, "dependency").isBlank()) {
            throw new IllegalArgumentException("dependency must not be blank");
        }
        requirePositive("attemptTimeout", attemptTimeout);
        requireAtLeast("maxAttempts", maxAttempts, 1);
        requireNotNegative("backoffBase", backoffBase);
        requireNotNegative("backoffCap", backoffCap);
        if (backoffCap.compareTo(backoffBase) < 0) {
            throw new IllegalArgumentException("backoffCap must not be below backoffBase");
        }
        if (failureRateThresholdPercent < 1 || failureRateThresholdPercent > 100) {
            throw new IllegalArgumentException("failureRateThresholdPercent must be 1..100, was "
                    + failureRateThresholdPercent);
        }
        requireAtLeast("minimumCalls", minimumCalls, 1);
        if (Objects.requireNonNull(failureWindow, "failureWindow").compareTo(SHORTEST_FAILURE_WINDOW) < 0) {
            throw new IllegalArgumentException("failureWindow must be at least 10 ms, was " + failureWindow);
        }
        requirePositive("openDuration", openDuration);
        requireAtLeast("halfOpenTrials", halfOpenTrials, 1);
        requireAtLeast("bulkheadPermits", bulkheadPermits, 1);
        requireNotNegative("bulkheadMaxWait", bulkheadMaxWait);
        if (!(retryBudgetRatio >= 0 && retryBudgetRatio <= 1)) {
            throw new IllegalArgumentException("retryBudgetRatio must be 0..1, was " + retryBudgetRatio);
        }
        requireAtLeast("retryBudgetInitial", retryBudgetInitial, 0);
        requirePositive("minimumUsefulBudget", minimumUsefulBudget);
        if (minimumUsefulBudget.compareTo(attemptTimeout) > 0) {
            // Otherwise no attempt could ever be made.
            throw new IllegalArgumentException("minimumUsefulBudget must not exceed attemptTimeout");
        }
    }

    /**
     * Returns a builder for {@code dependency}, preset to the inventory defaults.
     *
     * @throws NullPointerException if {@code dependency} is null
     */
    public static Builder builder(String dependency) {
        return new Builder(Objects.requireNonNull(dependency, "dependency"));
    }

    /**
     * The inventory service: 300 ms per attempt, 3 attempts, full jitter 50 ms base / 200 ms cap,
     * opens at 50% failures over at least 20 calls in 10 s, open 10 s, 3 half-open trials, 24
     * permits with 50 ms wait, don't call with less than 20 ms left.
     */
    public static ResilienceConfig inventoryDefaults() {
        return builder("inventory").build();
    }

    /**
     * The payment provider: 2 s per attempt, 3 attempts, full jitter 200 ms base / 2 s cap, opens
     * at 50% failures over at least 10 calls in 10 s, open 10 s, 3 half-open trials, 16 permits
     * with 100 ms wait, don't call with less than 50 ms left.
     */
    public static ResilienceConfig paymentDefaults() {
        return builder("payment")
                .attemptTimeout(Duration.ofSeconds(2))
                .backoffBase(Duration.ofMillis(200))
                .backoffCap(Duration.ofSeconds(2))
                .minimumCalls(10)
                .bulkheadPermits(16)
                .bulkheadMaxWait(Duration.ofMillis(100))
                .minimumUsefulBudget(Duration.ofMillis(50))
                .build();
    }

    /**
     * Applies optional overrides read through {@code env} (usually {@code System::getenv}) to
     * {@code defaults}. Variables are {@code <prefix>_TIMEOUT_MS}, {@code _MAX_ATTEMPTS},
     * {@code _BACKOFF_BASE_MS}, {@code _BACKOFF_CAP_MS}, {@code _BREAKER_FAILURE_PERCENT},
     * {@code _BREAKER_MIN_CALLS}, {@code _BREAKER_WINDOW_MS}, {@code _BREAKER_OPEN_MS},
     * {@code _BREAKER_HALF_OPEN_TRIALS}, {@code _BULKHEAD_PERMITS}, {@code _BULKHEAD_WAIT_MS},
     * {@code _RETRY_BUDGET_RATIO}, {@code _RETRY_BUDGET_INITIAL} and {@code _MIN_USEFUL_BUDGET_MS},
     * e.g. {@code SAGA_INVENTORY_TIMEOUT_MS}. Unset or blank variables keep the default.
     *
     * @throws IllegalArgumentException naming the variable if a value is malformed or out of
     *     range, or if the resulting settings contradict each other
     */
    public static ResilienceConfig fromEnvironment(
            String prefix, ResilienceConfig defaults, Function<String, String> env) {
        return new EnvironmentOverrides(prefix, env).applyTo(defaults);
    }

    /** Returns a builder preset to these settings. */
    public Builder toBuilder() {
        return new Builder(this);
    }

    /** Returns a copy with the circuit breaker layer present or not. */
    public ResilienceConfig withBreaker(boolean enabled) {
        return toBuilder().withBreaker(enabled).build();
    }

    /** Returns a copy with the bulkhead layer present or not. */
    public ResilienceConfig withBulkhead(boolean enabled) {
        return toBuilder().withBulkhead(enabled).build();
    }

    /** Returns a copy with retries on or off (off: one attempt per call). */
    public ResilienceConfig withRetries(boolean enabled) {
        return toBuilder().withRetries(enabled).build();
    }

    private static void requirePositive(String name, Duration value) {
        if (Objects.requireNonNull(value, name).isNegative() || value.isZero()) {
            throw new IllegalArgumentException(name + " must be positive, was " + value);
        }
    }

    private static void requireNotNegative(String name, Duration value) {
        if (Objects.requireNonNull(value, name).isNegative()) {
            throw new IllegalArgumentException(name + " must not be negative, was " + value);
        }
    }

    private static void requireAtLeast(String name, int value, int minimum) {
        if (value < minimum) {
            throw new IllegalArgumentException(name + " must be at least " + minimum + ", was " + value);
        }
    }

    /**
     * Mutable builder for {@link ResilienceConfig}; not thread-safe. {@link #build()} validates
     * and copies, so a builder can be reused.
     */
    public static final class Builder {
        private String dependency;
        private Duration attemptTimeout = Duration.ofMillis(300);
        private int maxAttempts = 3;
        private Duration backoffBase = Duration.ofMillis(50);
        private Duration backoffCap = Duration.ofMillis(200);
        private int failureRateThresholdPercent = 50;
        private int minimumCalls = 20;
        private Duration failureWindow = Duration.ofSeconds(10);
        private Duration openDuration = Duration.ofSeconds(10);
        private int halfOpenTrials = 3;
        private int bulkheadPermits = 24;
        private Duration bulkheadMaxWait = Duration.ofMillis(50);
        private double retryBudgetRatio = 0.1;
        private int retryBudgetInitial = 10;
        private Duration minimumUsefulBudget = Duration.ofMillis(20);
        private boolean breakerEnabled = true;
        private boolean bulkheadEnabled = true;
        private boolean retriesEnabled = true;

        private Builder(String dependency) {
            this.dependency = dependency;
        }

        private Builder(ResilienceConfig from) {
            dependency = from.dependency;
            attemptTimeout = from.attemptTimeout;
            maxAttempts = from.maxAttempts;
            backoffBase = from.backoffBase;
            backoffCap = from.backoffCap;
            failureRateThresholdPercent = from.failureRateThresholdPercent;
            minimumCalls = from.minimumCalls;
            failureWindow = from.failureWindow;
            openDuration = from.openDuration;
            halfOpenTrials = from.halfOpenTrials;
            bulkheadPermits = from.bulkheadPermits;
            bulkheadMaxWait = from.bulkheadMaxWait;
            retryBudgetRatio = from.retryBudgetRatio;
            retryBudgetInitial = from.retryBudgetInitial;
            minimumUsefulBudget = from.minimumUsefulBudget;
            breakerEnabled = from.breakerEnabled;
            bulkheadEnabled = from.bulkheadEnabled;
            retriesEnabled = from.retriesEnabled;
        }

        /** Sets the dependency's name. */
        public Builder dependency(String value) {
            dependency = value;
            return this;
        }

        /** Sets the most one attempt may take. */
        public Builder attemptTimeout(Duration value) {
            attemptTimeout = value;
            return this;
        }

        /** Sets the attempts per call, the first included. */
        public Builder maxAttempts(int value) {
            maxAttempts = value;
            return this;
        }

        /** Sets the backoff ceiling before the first retry. */
        public Builder backoffBase(Duration value) {
            backoffBase = value;
            return this;
        }

        /** Sets the largest backoff ceiling. */
        public Builder backoffCap(Duration value) {
            backoffCap = value;
            return this;
        }

        /** Sets the failure rate, in percent, at which the breaker opens. */
        public Builder failureRateThresholdPercent(int value) {
            failureRateThresholdPercent = value;
            return this;
        }

        /** Sets the calls needed in the window before the failure rate is judged. */
        public Builder minimumCalls(int value) {
            minimumCalls = value;
            return this;
        }

        /** Sets the sliding window over which failures are counted. */
        public Builder failureWindow(Duration value) {
            failureWindow = value;
            return this;
        }

        /** Sets how long the breaker stays open. */
        public Builder openDuration(Duration value) {
            openDuration = value;
            return this;
        }

        /** Sets the number of half-open trials. */
        public Builder halfOpenTrials(int value) {
            halfOpenTrials = value;
            return this;
        }

        /** Sets the most calls in flight. */
        public Builder bulkheadPermits(int value) {
            bulkheadPermits = value;
            return this;
        }

        /** Sets the longest wait for a bulkhead permit. */
        public Builder bulkheadMaxWait(Duration value) {
            bulkheadMaxWait = value;
            return this;
        }

        /** Sets the retry tokens each call earns. */
        public Builder retryBudgetRatio(double value) {
            retryBudgetRatio = value;
            return this;
        }

        /** Sets the retry tokens at start, also the budget's capacity. */
        public Builder retryBudgetInitial(int value) {
            retryBudgetInitial = value;
            return this;
        }

        /** Sets the least time left before the deadline for which a call is still worth making. */
        public Builder minimumUsefulBudget(Duration value) {
            minimumUsefulBudget = value;
            return this;
        }

        /** Includes the circuit breaker layer or not. */
        public Builder withBreaker(boolean enabled) {
            breakerEnabled = enabled;
            return this;
        }

        /** Includes the bulkhead layer or not. */
        public Builder withBulkhead(boolean enabled) {
            bulkheadEnabled = enabled;
            return this;
        }

        /** Turns retries on or off. */
        public Builder withRetries(boolean enabled) {
            retriesEnabled = enabled;
            return this;
        }

        /**
         * Returns the validated configuration.
         *
         * @throws IllegalArgumentException if a value is out of range
         * @throws NullPointerException if a value is missing
         */
        public ResilienceConfig build() {
            return new ResilienceConfig(dependency, attemptTimeout, maxAttempts, backoffBase,
                    backoffCap, failureRateThresholdPercent, minimumCalls, failureWindow,
                    openDuration, halfOpenTrials, bulkheadPermits, bulkheadMaxWait,
                    retryBudgetRatio, retryBudgetInitial, minimumUsefulBudget, breakerEnabled,
                    bulkheadEnabled, retriesEnabled);
        }
    }
}
