package org.sagas.orchestrator.saga;

import java.time.Duration;

/**
 * The engine's clocks and bounds.
 *
 * @param lease how long a running step is protected from a second runner; after a crash the
 *     step becomes due again when the lease ends
 * @param parkRetry how soon a parked saga is tried again when nothing else wakes it; also the
 *     first back-off after a step threw (doubling after each further failure, at most the lease)
 * @param parkedTtl how long a forward step may stay parked before the saga gives up ("expired")
 * @param stepRetries how many times a step that threw is tried again before the saga becomes an
 *     incident ({@link IncidentCause#STEP_FAILED})
 */
public record SagaTimings(Duration lease, Duration parkRetry, Duration parkedTtl, int stepRetries) {
    public static final int DEFAULT_STEP_RETRIES = 3;

    public SagaTimings {
        if (stepRetries < 0) {
            throw new IllegalArgumentException("stepRetries must be at least 0, got " + stepRetries);
        }
    }

    public SagaTimings(Duration lease, Duration parkRetry, Duration parkedTtl) {
        this(lease, parkRetry, parkedTtl, DEFAULT_STEP_RETRIES);
    }

    public static SagaTimings defaults() {
        return new SagaTimings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofMinutes(15));
    }

    /** The wait before retry number {@code retry} (1 for the first) of a step that threw. */
    public Duration failureBackoff(int retry) {
        Duration d = parkRetry.multipliedBy(1L << Math.min(20, Math.max(0, retry - 1)));
        return d.compareTo(lease) > 0 ? lease : d;
    }
}
