package org.sagas.orchestrator.resilience;

import java.time.Duration;

/**
 * The bulkhead layer of one dependency: how many calls may be in flight and how long a call
 * waits for a free slot. Immutable and thread-safe; build one with {@link #builder()}, which has
 * no defaults: each dependency states its own values.
 *
 * @param permits the most calls in flight to the dependency
 * @param maxWait the longest a call waits for a permit (never beyond its deadline)
 */
public record BulkheadConfig(int permits, Duration maxWait) {

    /** The most permits accepted. */
    public static final int MAX_PERMITS = 10_000;
    /** The longest wait accepted. */
    public static final Duration MAX_WAIT = Duration.ofMinutes(10);

    /**
     * Validates both values.
     *
     * @throws IllegalArgumentException naming the field and its range if one is out of range
     * @throws NullPointerException naming a missing field
     */
    public BulkheadConfig {
        ConfigChecks.between("permits", permits, 1, MAX_PERMITS);
        ConfigChecks.between("maxWait", maxWait, Duration.ZERO, MAX_WAIT);
    }

    /** Returns an empty builder: every field must be set. */
    public static Builder builder() {
        return new Builder();
    }

    /** Returns a builder preset to these values. */
    public Builder toBuilder() {
        return new Builder().permits(permits).maxWait(maxWait);
    }

    /** Mutable builder; not thread-safe. {@link #build()} validates and copies. */
    public static final class Builder {
        private Integer permits;
        private Duration maxWait;

        private Builder() {
        }

        /** Sets the most calls in flight. */
        public Builder permits(int value) {
            permits = value;
            return this;
        }

        /** Sets the longest wait for a permit. */
        public Builder maxWait(Duration value) {
            maxWait = value;
            return this;
        }

        /**
         * Returns the validated configuration.
         *
         * @throws IllegalArgumentException naming the field and its range
         * @throws NullPointerException naming a field never set
         */
        public BulkheadConfig build() {
            return new BulkheadConfig(ConfigChecks.required("permits", permits), maxWait);
        }
    }
}
