package org.sagas.orchestrator.resilience;

import java.time.Duration;

/**
 * The circuit breaker layer of one dependency. Immutable and thread-safe; build one with
 * {@link #builder()}, which has no defaults: each dependency states its own values.
 *
 * @param failureRateThresholdPercent the breaker opens at this failure rate or above
 * @param minimumCalls ... once at least this many calls were seen in the window
 * @param failureWindow ... over this sliding window
 * @param openDuration how long the breaker stays open before letting trials through
 * @param halfOpenTrials trials when half-open: this many successes close it, and at most this
 *     many run at once
 */
public record BreakerConfig(int failureRateThresholdPercent, int minimumCalls, Duration failureWindow,
        Duration openDuration, int halfOpenTrials) {

    /** Failsafe measures failure rates in buckets and refuses windows shorter than this. */
    public static final Duration SHORTEST_WINDOW = Duration.ofMillis(10);
    /** The longest failure window or open duration accepted. */
    public static final Duration MAX_DURATION = Duration.ofHours(1);
    /** The most minimum calls accepted. */
    public static final int MAX_MINIMUM_CALLS = 1_000_000;
    /** The most half-open trials accepted. */
    public static final int MAX_HALF_OPEN_TRIALS = 10_000;

    /**
     * Validates every value.
     *
     * @throws IllegalArgumentException naming the field and its range if one is out of range
     * @throws NullPointerException naming a missing field
     */
    public BreakerConfig {
        ConfigChecks.between("failureRateThresholdPercent", failureRateThresholdPercent, 1, 100);
        ConfigChecks.between("minimumCalls", minimumCalls, 1, MAX_MINIMUM_CALLS);
        ConfigChecks.between("failureWindow", failureWindow, SHORTEST_WINDOW, MAX_DURATION);
        ConfigChecks.positive("openDuration", openDuration, MAX_DURATION);
        ConfigChecks.between("halfOpenTrials", halfOpenTrials, 1, MAX_HALF_OPEN_TRIALS);
    }

    /** Returns an empty builder: every field must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns a builder preset to these values. */
    public Builder toBuilder() {
        return new Builder().failureRateThresholdPercent(failureRateThresholdPercent).minimumCalls(minimumCalls)
                .failureWindow(failureWindow).openDuration(openDuration).halfOpenTrials(halfOpenTrials);
    }

    /** Mutable builder; not thread-safe. {@link #build()} validates and copies. */
    public static final class Builder {
        private Integer failureRateThresholdPercent;
        private Integer minimumCalls;
        private Duration failureWindow;
        private Duration openDuration;
        private Integer halfOpenTrials;

        private Builder() {
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

        /**
         * Returns the validated configuration.
         *
         * @throws IllegalArgumentException naming the field and its range
         * @throws NullPointerException naming a field never set
         */
        public BreakerConfig build() {
            return new BreakerConfig(ConfigChecks.required("failureRateThresholdPercent", failureRateThresholdPercent),
                    ConfigChecks.required("minimumCalls", minimumCalls), failureWindow, openDuration,
                    ConfigChecks.required("halfOpenTrials", halfOpenTrials));
        }
    }
}
