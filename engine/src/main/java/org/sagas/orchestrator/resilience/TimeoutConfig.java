package org.sagas.orchestrator.resilience;

import java.time.Duration;

/**
 * The timeout layer of one dependency, always present. Immutable and thread-safe; build one with
 * {@link #builder()}, which has no defaults: each dependency states its own values.
 *
 * @param attemptTimeout the most one attempt may take (capped further by the call's deadline)
 * @param minimumUsefulBudget below this much time left before the deadline, don't call: an
 *     attempt that short could not get an answer
 */
public record TimeoutConfig(Duration attemptTimeout, Duration minimumUsefulBudget) {

    /** The longest attempt timeout and the largest minimum useful budget accepted. */
    public static final Duration MAX = Duration.ofMinutes(10);

    /**
     * Validates both values.
     *
     * @throws IllegalArgumentException naming the field and its range if one is out of range, or
     *     if {@code minimumUsefulBudget} exceeds {@code attemptTimeout} (no attempt could be made)
     * @throws NullPointerException naming a missing field
     */
    public TimeoutConfig {
        ConfigChecks.positive("attemptTimeout", attemptTimeout, MAX);
        ConfigChecks.positive("minimumUsefulBudget", minimumUsefulBudget, MAX);
        if (minimumUsefulBudget.compareTo(attemptTimeout) > 0) {
            throw new IllegalArgumentException("minimumUsefulBudget must not exceed attemptTimeout ("
                    + attemptTimeout.toMillis() + " ms), was " + minimumUsefulBudget.toMillis() + " ms");
        }
    }

    /** Returns an empty builder: every field must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns a builder preset to these values. */
    public Builder toBuilder() {
        return new Builder().attemptTimeout(attemptTimeout).minimumUsefulBudget(minimumUsefulBudget);
    }

    /** Mutable builder; not thread-safe. {@link #build()} validates and copies. */
    public static final class Builder {
        private Duration attemptTimeout;
        private Duration minimumUsefulBudget;

        private Builder() {
        }

        /** Sets the most one attempt may take. */
        public Builder attemptTimeout(Duration value) {
            attemptTimeout = value;
            return this;
        }

        /** Sets the least time left before the deadline for which a call is still worth making. */
        public Builder minimumUsefulBudget(Duration value) {
            minimumUsefulBudget = value;
            return this;
        }

        /**
         * Returns the validated configuration.
         *
         * @throws IllegalArgumentException naming the field and its range
         * @throws NullPointerException naming a field never set
         */
        public TimeoutConfig build() {
            return new TimeoutConfig(attemptTimeout, minimumUsefulBudget);
        }
    }
}
