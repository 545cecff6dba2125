package org.sagas.relay.internal;

import java.time.Duration;

/**
 * The polling fallback's pace: right after a read that found rows the relay looks again almost at
 * once; each empty read doubles the pause, up to the configured interval. A writer in the same JVM
 * wakes the relay earlier through {@link WakeSignal}. Not thread-safe.
 */
public final class AdaptivePoll {
    static final long MIN_NANOS = Duration.ofMillis(1).toNanos();

    private final long maxNanos;
    private long nextNanos = MIN_NANOS;

    public AdaptivePoll(Duration max) {
        this.maxNanos = Math.max(MIN_NANOS, max.toNanos());
    }

    /** A read found rows: poll quickly again. */
    public void foundRows() {
        nextNanos = MIN_NANOS;
    }

    /** A read found nothing: how long to wait before the next one. */
    public long idlePauseNanos() {
        long pause = nextNanos;
        nextNanos = Math.min(maxNanos, nextNanos * 2);
        return pause;
    }
}
