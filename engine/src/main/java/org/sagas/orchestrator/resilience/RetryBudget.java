package org.sagas.orchestrator.resilience;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Limits retries to a fraction of calls, so a struggling dependency is not hit with a multiple of
 * its normal load. A token bucket: each call earns {@code ratio} tokens, each retry spends one;
 * the bucket starts full at {@code initial} tokens and never holds more.
 *
 * <p>Thread-safe and lock-free.
 */
public final class RetryBudget {

    /*
     * Tokens are counted in millionths: summing 0.1 ten times in floating point gives
     * 0.9999999999999999, which would refuse a retry that the budget has earned.
     */
    private static final long SCALE = 1_000_000L;

    private final long earnedPerCall;
    private final long capacity;
    private final AtomicLong tokens;

    /**
     * Creates a full budget.
     *
     * @param ratio tokens each call earns, 0..1 (0.1 allows retries for 10% of calls)
     * @param initial tokens at start and the most the budget holds; 0 allows no retry
     * @throws IllegalArgumentException if {@code ratio} is outside 0..1 or {@code initial} negative
     */
    public RetryBudget(double ratio, int initial) {
        if (!(ratio >= 0 && ratio <= 1)) {
            throw new IllegalArgumentException("ratio must be 0..1, was " + ratio);
        }
        if (initial < 0) {
            throw new IllegalArgumentException("initial must not be negative, was " + initial);
        }
        this.earnedPerCall = Math.round(ratio * SCALE);
        this.capacity = initial * SCALE;
        this.tokens = new AtomicLong(capacity);
    }

    /** Records a call to the dependency, earning {@code ratio} tokens up to the capacity. */
    public void recordCall() {
        tokens.updateAndGet(current -> Math.min(capacity, current + earnedPerCall));
    }

    /** Spends one token for a retry; returns false, spending nothing, if less than one is left. */
    public boolean tryAcquireRetry() {
        while (true) {
            long current = tokens.get();
            if (current < SCALE) {
                return false;
            }
            if (tokens.compareAndSet(current, current - SCALE)) {
                return true;
            }
        }
    }

    /** Returns the tokens currently available, for metrics and tests. */
    public double availableTokens() {
        return (double) tokens.get() / SCALE;
    }
}
