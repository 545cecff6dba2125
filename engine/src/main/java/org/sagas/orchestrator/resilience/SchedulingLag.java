package org.sagas.orchestrator.resilience;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;

/**
 * How late a sleeping thread wakes: a probe of the machine's run queue. A thread asks to sleep
 * {@code period} and measures how much longer it took; on a machine with cores to spare that is
 * well under a millisecond, on one whose cores are all taken it is the time runnable threads wait
 * for a core — the queue every request of the product waits in too, before any of its code runs,
 * even the code that would refuse it. Admission reads it as the product's own slowness (see
 * {@link AdaptiveLimit}). One daemon thread, {@code 1 / period} wake-ups a second while it is
 * read; unread for a second (no requests, so no window to judge), it sleeps until the next read
 * (at most a minute), so an idle product does not pay for it. Thread-safe.
 */
public final class SchedulingLag implements AutoCloseable {
    private final long periodNanos;
    private final AtomicLong sumNanos = new AtomicLong();
    private final AtomicLong samples = new AtomicLong();
    private final Thread probe;
    private volatile boolean running = true;
    private volatile long lastRead = System.nanoTime();
    private static final long IDLE_AFTER_NANOS = 1_000_000_000L;
    private static final long IDLE_PERIOD_NANOS = 60_000_000_000L;
    private volatile boolean sleeping;

    private SchedulingLag(Duration period) {
        this.periodNanos = period.toNanos();
        this.probe = new Thread(this::run, "scheduling-lag");
        probe.setDaemon(true);
    }

    /** Starts a probe sleeping {@code period} at a time. */
    public static SchedulingLag start(Duration period) {
        SchedulingLag lag = new SchedulingLag(period);
        lag.probe.start();
        return lag;
    }

    private void run() {
        while (running) {
            if (System.nanoTime() - lastRead > IDLE_AFTER_NANOS) {
                sleeping = true;
                if (System.nanoTime() - lastRead > IDLE_AFTER_NANOS) {
                    LockSupport.parkNanos(this, IDLE_PERIOD_NANOS);
                }
                sleeping = false;
                continue;
            }
            long start = System.nanoTime();
            LockSupport.parkNanos(periodNanos);
            long late = System.nanoTime() - start - periodNanos;
            sumNanos.addAndGet(Math.max(0, late));
            samples.incrementAndGet();
        }
    }

    /** The average lateness since the last call, in nanoseconds (0 without a sample); resets it. */
    public long takeAverageNanos() {
        lastRead = System.nanoTime();
        if (sleeping) {
            LockSupport.unpark(probe);
        }
        long n = samples.getAndSet(0);
        long sum = sumNanos.getAndSet(0);
        return n == 0 ? 0 : sum / n;
    }

    @Override
    public void close() {
        running = false;
        probe.interrupt();
    }
}
