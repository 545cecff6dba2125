package org.sagas.relay.internal;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The polling fallback's pace: right after a read that found rows the relay looks again almost at
 * once; each empty read doubles the pause, up to the configured interval. A writer in the same JVM
 * wakes the relay earlier through {@link WakeSignal}.
 *
 * <p>While the relay trusts the wake-ups ({@link #trustsWakeUps}), it does not look again after a
 * read that found rows until the next wake-up or the idle interval: at a low rate, those quick
 * looks were five empty reads for every row sent (each one a statement and a transaction).
 *
 * <p>With an idle interval longer than the interval, the pause may grow further, up to the idle
 * interval, for as long as every row found after a wait came with a wake-up: while the writers are
 * all in this process and wake the relay, polling is only a safety net and an idle relay reads
 * rarely. A read after a wait that ended without a wake-up and still found rows shows a writer
 * that does not wake this relay (another process, or a row of this relay's shards written next to
 * another relay): for {@link #UNANNOUNCED_WINDOW} after that the pause is held to the interval
 * again (docs/decisions/0024-idle-relay-waits-for-its-wake-up.md). Not thread-safe.
 */
public final class AdaptivePoll {
    static final long MIN_NANOS = Duration.ofMillis(1).toNanos();
    /** How long after rows that came without a wake-up the short interval holds. */
    static final long UNANNOUNCED_WINDOW = TimeUnit.SECONDS.toNanos(60);

    private final long maxNanos;
    private final long idleMaxNanos;
    private long nextNanos = MIN_NANOS;
    private boolean sawUnannounced;
    private long unannouncedAt;

    public AdaptivePoll(Duration max) {
        this(max, max);
    }

    /**
     * @param max the longest pause while some writer may not wake the relay
     * @param idleMax the longest pause while every row found came with a wake-up (at least {@code max})
     */
    public AdaptivePoll(Duration max, Duration idleMax) {
        this.maxNanos = Math.max(MIN_NANOS, max.toNanos());
        this.idleMaxNanos = Math.max(maxNanos, idleMax.toNanos());
    }

    /** A read found rows: poll quickly again. */
    public void foundRows() {
        nextNanos = MIN_NANOS;
    }

    /**
     * A read found rows; {@code unannounced} when it followed a wait that ended without a wake-up
     * (so some writer did not wake this relay).
     */
    public void foundRows(boolean unannounced, long nowNanos) {
        if (unannounced) {
            sawUnannounced = true;
            unannouncedAt = nowNanos;
        }
        // Trusting the wake-ups, the next rows will come with one: no quick looks in between.
        nextNanos = trustsWakeUps(nowNanos) ? idleMaxNanos : MIN_NANOS;
    }

    /**
     * Whether every row lately came with a wake-up (and an idle interval longer than the interval
     * says the writers wake the relay): then a read that did not fill its batch has taken every row
     * there was, and the next ones will wake the relay, so it need not look again before then.
     */
    public boolean trustsWakeUps(long nowNanos) {
        return idleMaxNanos > maxNanos && !(sawUnannounced && nowNanos - unannouncedAt < UNANNOUNCED_WINDOW);
    }

    /** A read found nothing: how long to wait before the next one. */
    public long idlePauseNanos() {
        return idlePauseNanos(System.nanoTime());
    }

    /** As {@link #idlePauseNanos()}, at {@code nowNanos}. */
    public long idlePauseNanos(long nowNanos) {
        long cap = trustsWakeUps(nowNanos) ? idleMaxNanos : maxNanos;
        long pause = Math.min(nextNanos, cap);
        nextNanos = Math.min(idleMaxNanos, nextNanos * 2);
        return pause;
    }
}
