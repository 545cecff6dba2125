package org.sagas.orchestrator.resilience;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;

/**
 * Limits the calls in flight to one dependency, waiting a bounded time for a free slot.
 *
 * <p>It replaces Failsafe's {@code Bulkhead}, whose synchronous form can leak a permit when a
 * waiter is rejected or times out (a known Failsafe fault, reproduced by SemaphoreBulkheadTest). A fair {@link Semaphore} gives a permit
 * only to a waiter that returns it, and a {@link Permit} returns it exactly once.
 *
 * <p>Thread-safe.
 */
public final class SemaphoreBulkhead {

    private final int permits;
    private final Semaphore semaphore;

    /**
     * Creates a bulkhead admitting {@code permits} calls at once.
     *
     * @throws IllegalArgumentException if {@code permits} is below 1
     */
    public SemaphoreBulkhead(int permits) {
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1, was " + permits);
        }
        this.permits = permits;
        this.semaphore = new Semaphore(permits, true);
    }

    /**
     * Takes a permit, waiting at most {@code maxWait}; empty if none became free in time.
     *
     * <p>If the thread is interrupted while waiting, returns empty and keeps the thread's
     * interrupt status set.
     */
    public Optional<Permit> tryAcquire(Duration maxWait) {
        long nanos = Math.max(0, Objects.requireNonNull(maxWait, "maxWait").toNanos());
        try {
            // The timed form even with zero wait: the untimed tryAcquire() ignores fairness.
            if (!semaphore.tryAcquire(nanos, TimeUnit.NANOSECONDS)) {
                return Optional.empty();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
        return Optional.of(new Permit(semaphore::release));
    }

    /** Returns the number of permits currently taken. */
    public int inUse() {
        return permits - semaphore.availablePermits();
    }

    /** Returns the number of permits currently free. */
    public int availablePermits() {
        return semaphore.availablePermits();
    }

    /** Returns the configured number of permits. */
    public int permits() {
        return permits;
    }
}
