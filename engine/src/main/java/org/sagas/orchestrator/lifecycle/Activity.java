package org.sagas.orchestrator.lifecycle;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Whether the product did anything (a saga moved, an order came in): periodic jobs that look for
 * work in the database back off while nothing happens and come back to their own period on the
 * next touch (docs/benchmarks.md, "Idle"). {@link #touch()} is cheap (one atomic increment and a
 * volatile read); only the first touch after a job went quiet runs that job's wake-up. Thread-safe.
 */
public final class Activity {
    private final AtomicLong count = new AtomicLong();
    private final List<Runnable> onWake = new CopyOnWriteArrayList<>();
    private volatile boolean someoneQuiet;

    /** Something happened. */
    public void touch() {
        count.incrementAndGet();
        if (someoneQuiet) {
            someoneQuiet = false;
            onWake.forEach(Runnable::run);
        }
    }

    /** How many touches so far: unchanged between two runs of a job means nothing happened. */
    public long count() {
        return count.get();
    }

    /** A job waits longer than its period: the next touch wakes it. */
    void quiet() {
        someoneQuiet = true;
    }

    /** Runs {@code wakeUp} on the first touch after some job went quiet (on the touching thread: keep it short). */
    void onWake(Runnable wakeUp) {
        onWake.add(wakeUp);
    }
}
