package org.sagas.orchestrator.resilience;

import java.time.Duration;
import java.util.Objects;
import java.util.function.LongSupplier;

/**
 * Paces the resumption of parked work so a recovering dependency is not knocked over again: a
 * token bucket with slow start. The rate starts low, doubles after every second of pacing without
 * a {@link #backOff()}, up to the maximum; {@link #backOff()} halves it when the dependency
 * struggles again, and {@link #reset()} goes back to the start rate.
 *
 * <p>The bucket holds one token, so permits are spread evenly rather than granted in bursts.
 * Time comes from an injectable nanosecond source, so tests need no sleeping. Thread-safe (every
 * method holds the pacer's lock briefly).
 */
public final class TokenBucketPacer {

    private static final long ONE_SECOND = 1_000_000_000L;
    private static final double CAPACITY = 1.0;
    /** Summing many small refills in floating point falls a hair short of a whole token. */
    private static final double ROUNDING = 1e-9;

    private final double maxRate;
    private final double startRate;
    private final LongSupplier nanoTime;

    private double rate;
    private double tokens;
    private long refilledAt;
    private long rateChangedAt;

    /** Creates a pacer on {@link System#nanoTime()} with the default start rate. */
    public TokenBucketPacer(double maxPerSecond) {
        this(maxPerSecond, System::nanoTime);
    }

    /**
     * Creates a pacer starting at a tenth of {@code maxPerSecond}, but at least 1 per second (or
     * the maximum, if that is lower).
     *
     * @throws IllegalArgumentException if {@code maxPerSecond} is not positive
     */
    public TokenBucketPacer(double maxPerSecond, LongSupplier nanoTime) {
        this(maxPerSecond, Math.max(Math.min(1.0, maxPerSecond), maxPerSecond / 10), nanoTime);
    }

    /**
     * Creates a pacer with an explicit start rate.
     *
     * @throws IllegalArgumentException unless {@code 0 < startPerSecond <= maxPerSecond}
     */
    public TokenBucketPacer(double maxPerSecond, double startPerSecond, LongSupplier nanoTime) {
        if (!(maxPerSecond > 0) || !(startPerSecond > 0) || startPerSecond > maxPerSecond
                || Double.isInfinite(maxPerSecond)) {
            throw new IllegalArgumentException("need 0 < start <= max, were "
                    + startPerSecond + " and " + maxPerSecond);
        }
        this.maxRate = maxPerSecond;
        this.startRate = startPerSecond;
        this.nanoTime = Objects.requireNonNull(nanoTime, "nanoTime");
        long now = nanoTime.getAsLong();
        this.rate = startPerSecond;
        this.tokens = CAPACITY;
        this.refilledAt = now;
        this.rateChangedAt = now;
    }

    /** Takes a permit if one is available now; never blocks. */
    public synchronized boolean tryAcquire() {
        advance();
        if (tokens < 1.0 - ROUNDING) {
            return false;
        }
        tokens = Math.max(0, tokens - 1.0);
        return true;
    }

    /** Returns how long until {@link #tryAcquire()} will succeed at the current rate; zero if now. */
    public synchronized Duration timeUntilNextPermit() {
        advance();
        if (tokens >= 1.0 - ROUNDING) {
            return Duration.ZERO;
        }
        return Duration.ofNanos((long) Math.ceil((1.0 - tokens) / rate * ONE_SECOND));
    }

    /** Returns the current rate in permits per second. */
    public synchronized double currentRate() {
        advance();
        return rate;
    }

    /**
     * Halves the rate, not below the start rate, and restarts the doubling clock. The token in
     * hand is dropped so the next permit waits for the slower pace.
     */
    public synchronized void backOff() {
        advance();
        rate = Math.max(startRate, rate / 2);
        tokens = 0;
        rateChangedAt = refilledAt;
    }

    /** Goes back to the start rate with one token in hand, as for a fresh resume run. */
    public synchronized void reset() {
        advance();
        rate = startRate;
        tokens = CAPACITY;
        rateChangedAt = refilledAt;
    }

    /**
     * Brings tokens and rate up to now. Time is replayed second by second so tokens earned
     * before a doubling are earned at the old rate.
     */
    private void advance() {
        long now = nanoTime.getAsLong();
        while (rate < maxRate && now - rateChangedAt >= ONE_SECOND) {
            long doubledAt = rateChangedAt + ONE_SECOND;
            refill(doubledAt);
            rate = Math.min(maxRate, rate * 2);
            rateChangedAt = doubledAt;
        }
        refill(now);
    }

    private void refill(long until) {
        long elapsed = until - refilledAt;
        if (elapsed > 0) {
            tokens = Math.min(CAPACITY, tokens + elapsed * rate / ONE_SECOND);
            refilledAt = until;
        }
    }
}
