package org.sagas.orchestrator.saga;

import java.time.Duration;

/**
 * The engine's clocks.
 *
 * @param lease how long a running step is protected from a second runner; after a crash the
 *     step becomes due again when the lease ends
 * @param parkRetry how soon a parked saga is tried again when nothing else wakes it
 * @param parkedTtl how long a forward step may stay parked before the saga gives up ("expired")
 */
public record SagaTimings(Duration lease, Duration parkRetry, Duration parkedTtl) {
    public static SagaTimings defaults() {
        return new SagaTimings(Duration.ofSeconds(30), Duration.ofSeconds(5), Duration.ofMinutes(15));
    }
}
