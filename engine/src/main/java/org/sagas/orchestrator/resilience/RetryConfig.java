package org.sagas.orchestrator.resilience;

import java.time.Duration;

/**
 * The retry layer of one dependency: how many attempts, the full-jitter backoff between them and
 * the retry budget all calls share. Immutable and thread-safe; build one with {@link #builder()},
 * which has no defaults: each dependency states its own values.
 *
 * @param maxAttempts attempts per call, the first included
 * @param backoffBase full-jitter backoff: ceiling before the first retry
 * @param backoffCap full-jitter backoff: the ceiling never grows beyond this
 * @param budgetRatio retry tokens each call earns (0.1: retries at most 10% of calls)
 * @param budgetInitial retry tokens at start, also the most the budget can hold
 */
public record RetryConfig(int maxAttempts, Duration backoffBase, Duration backoffCap, double budgetRatio,
        int budgetInitial) {

    /** The most attempts per call accepted. */
    public static final int MAX_ATTEMPTS = 100;
    /** The longest backoff base or cap accepted. */
    public static final Duration MAX_BACKOFF = Duration.ofMinutes(10);
    /** The largest retry budget accepted. */
    public static final int MAX_BUDGET = 1_000_000;

    /**
     * Validates every value.
     *
     * @throws IllegalArgumentException naming the field and its range if one is out of range, or
     *     if {@code backoffCap} is below {@code backoffBase}
     * @throws NullPointerException naming a missing field
     */
    public RetryConfig {
        ConfigChecks.between("maxAttempts", maxAttempts, 1, MAX_ATTEMPTS);
        ConfigChecks.between("backoffBase", backoffBase, Duration.ZERO, MAX_BACKOFF);
        ConfigChecks.between("backoffCap", backoffCap, Duration.ZERO, MAX_BACKOFF);
        if (backoffCap.compareTo(backoffBase) < 0) {
            throw new IllegalArgumentException("backoffCap must not be below backoffBase ("
                    + backoffBase.toMillis() + " ms), was " + backoffCap.toMillis() + " ms");
        }
        ConfigChecks.between("budgetRatio", budgetRatio, 0.0, 1.0);
        ConfigChecks.between("budgetInitial", budgetInitial, 0, MAX_BUDGET);
    }

    /** Returns an empty builder: every field must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns a builder preset to these values. */
    public Builder toBuilder() {
        return new Builder().maxAttempts(maxAttempts).backoffBase(backoffBase).backoffCap(backoffCap)
                .budgetRatio(budgetRatio).budgetInitial(budgetInitial);
    }

    /** Mutable builder; not thread-safe. {@link #build()} validates and copies. */
    public static final class Builder {
        private Integer maxAttempts;
        private Duration backoffBase;
        private Duration backoffCap;
        private Double budgetRatio;
        private Integer budgetInitial;

        private Builder() {
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

        /** Sets the retry tokens each call earns. */
        public Builder budgetRatio(double value) {
            budgetRatio = value;
            return this;
        }

        /** Sets the retry tokens at start, also the budget's capacity. */
        public Builder budgetInitial(int value) {
            budgetInitial = value;
            return this;
        }

        /**
         * Returns the validated configuration.
         *
         * @throws IllegalArgumentException naming the field and its range
         * @throws NullPointerException naming a field never set
         */
        public RetryConfig build() {
            return new RetryConfig(ConfigChecks.required("maxAttempts", maxAttempts), backoffBase, backoffCap,
                    ConfigChecks.required("budgetRatio", budgetRatio),
                    ConfigChecks.required("budgetInitial", budgetInitial));
        }
    }
}
