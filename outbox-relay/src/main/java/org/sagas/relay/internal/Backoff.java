package org.sagas.relay.internal;

import java.time.Duration;

/** Exponential pause after failures, from {@code first} doubling up to {@code max}. Not thread-safe. */
final class Backoff {
    private final long firstNanos;
    private final long maxNanos;
    private long nextNanos;

    Backoff(Duration first, Duration max) {
        this.firstNanos = first.toNanos();
        this.maxNanos = max.toNanos();
        this.nextNanos = firstNanos;
    }

    long nextNanos() {
        long pause = nextNanos;
        nextNanos = Math.min(maxNanos, nextNanos * 2);
        return pause;
    }

    void reset() {
        nextNanos = firstNanos;
    }
}
