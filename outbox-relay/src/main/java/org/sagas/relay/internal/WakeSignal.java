package org.sagas.relay.internal;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;

/**
 * Lets writers wake the relay's one waiting thread. {@link #signal()} is cheap and never blocks
 * (one atomic write, at most one unpark); a signal sent while the relay is busy is kept, so the
 * next wait returns at once. Thread-safe; exactly one thread may {@link #await(long)}.
 */
public final class WakeSignal {
    private final AtomicBoolean signalled = new AtomicBoolean();
    private volatile Thread waiter;

    public void signal() {
        if (!signalled.getAndSet(true)) {
            Thread t = waiter;
            if (t != null) {
                LockSupport.unpark(t);
            }
        }
    }

    /** Whether a signal came since the last {@link #await} cleared it (it is not cleared here). */
    public boolean pending() {
        return signalled.get();
    }

    /**
     * Waits until signalled or {@code nanos} passed, then clears the signal. Clearing happens
     * before the caller's next read, so a signal sent after a writer's commit is either seen by
     * that read or wakes the next wait: no wake-up is lost.
     *
     * @return whether a signal ended (or came during) the wait, false when it timed out
     */
    public boolean await(long nanos) {
        waiter = Thread.currentThread();
        long deadline = System.nanoTime() + nanos;
        while (!signalled.get()) {
            long left = deadline - System.nanoTime();
            if (left <= 0 || Thread.currentThread().isInterrupted()) {
                break;
            }
            LockSupport.parkNanos(this, left);
        }
        return signalled.getAndSet(false);
    }
}
