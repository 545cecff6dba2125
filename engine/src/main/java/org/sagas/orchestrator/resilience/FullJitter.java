package org.sagas.orchestrator.resilience;

import dev.failsafe.function.ContextualSupplier;
import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

/**
 * Exponential backoff with full jitter: before retry {@code n} (0 for the first) wait a uniformly
 * random time in {@code [0, min(cap, base * 2^n))}. Spreading retries over the whole interval
 * keeps clients that failed together from retrying together.
 *
 * <p>Thread-safe if the random source is (the default one is).
 */
public final class FullJitter {

    private final long baseNanos;
    private final long capNanos;
    private final DoubleSupplier random;

    /** Creates the backoff with a thread-local random source. */
    public FullJitter(Duration base, Duration cap) {
        this(base, cap, () -> ThreadLocalRandom.current().nextDouble());
    }

    /**
     * Creates the backoff with an explicit source of uniform doubles in {@code [0, 1)}.
     *
     * @throws IllegalArgumentException if {@code base} is negative or {@code cap} below it
     */
    public FullJitter(Duration base, Duration cap, DoubleSupplier random) {
        this.baseNanos = Objects.requireNonNull(base, "base").toNanos();
        this.capNanos = Objects.requireNonNull(cap, "cap").toNanos();
        this.random = Objects.requireNonNull(random, "random");
        if (baseNanos < 0 || capNanos < baseNanos) {
            throw new IllegalArgumentException("need 0 <= base <= cap, was " + base + " and " + cap);
        }
    }

    /**
     * Returns the wait before retry {@code n}, counting from 0.
     *
     * @throws IllegalArgumentException if {@code n} is negative
     */
    public Duration delay(int n) {
        if (n < 0) {
            throw new IllegalArgumentException("n must not be negative, was " + n);
        }
        double fraction = Math.min(Math.max(random.getAsDouble(), 0.0), 1.0);
        return Duration.ofNanos((long) (fraction * ceiling(n)));
    }

    /**
     * Returns this backoff as a Failsafe {@code RetryPolicyBuilder.withDelayFn} function: after
     * the attempt count reaches {@code k}, the delay is {@code delay(k - 1)}.
     *
     * @param <R> the policy's result type
     */
    public <R> ContextualSupplier<R, Duration> asDelayFunction() {
        return context -> delay(Math.max(0, context.getAttemptCount() - 1));
    }

    /** Returns {@code min(cap, base * 2^n)} without overflowing. */
    long ceiling(int n) {
        if (baseNanos == 0) {
            return 0;
        }
        long ceiling = baseNanos;
        for (int i = 0; i < n && ceiling < capNanos; i++) {
            ceiling = ceiling > capNanos / 2 ? capNanos : ceiling * 2;
        }
        return ceiling;
    }
}
