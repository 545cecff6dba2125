package org.sagas.orchestrator.resilience;

/**
 * What each thread spends inside calls to remote dependencies ({@link ResilientDependency#call}:
 * bulkhead wait, attempts, backoffs): the time, and whether it is in one now. Admission reads the
 * time before and after a request to tell the product's own time from the participants', and
 * watches the calls of the requests it admitted so that a request waiting on a participant does
 * not count as using the product (see {@link AdaptiveLimit}). Each thread counts only its own
 * calls; thread-safe.
 */
public final class RemoteTime {
    /** Told when the thread it watches enters and leaves a remote call. Implementations are thread-safe. */
    public interface Watcher {
        void entered();

        void left();
    }

    private static final class Spent {
        long nanos;
        Watcher watcher;
    }

    private static final ThreadLocal<Spent> SPENT = ThreadLocal.withInitial(Spent::new);

    private RemoteTime() {}

    /** Returns the nanoseconds this thread has spent in remote calls so far. */
    public static long spentNanos() {
        return SPENT.get().nanos;
    }

    /** Ends a {@link #watch}; closing twice is harmless. */
    public interface Watch extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * Tells {@code watcher} of this thread's remote calls until the returned handle is closed (a
     * request's admission, for as long as it is admitted).
     */
    public static Watch watch(Watcher watcher) {
        Spent spent = SPENT.get();
        spent.watcher = watcher;
        return () -> spent.watcher = null;
    }

    static void add(long nanos) {
        SPENT.get().nanos += Math.max(0, nanos);
    }

    /**
     * The thread's call now holds its bulkhead permit and goes on the wire: tells the watcher, if
     * any, and returns it for {@link #offWire}. A request still waiting for the bulkhead is not
     * waiting on the participant yet, and keeps counting as using the product.
     */
    static Watcher onWire() {
        Watcher w = SPENT.get().watcher;
        if (w != null) {
            w.entered();
        }
        return w;
    }

    static void offWire(Watcher watcher) {
        if (watcher != null) {
            watcher.left();
        }
    }
}
