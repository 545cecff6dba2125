package org.sagas.orchestrator.resilience;

/**
 * The time each thread has spent inside calls to remote dependencies ({@link
 * ResilientDependency#call}: bulkhead wait, attempts, backoffs). Admission reads it before and
 * after a request to tell the product's own time from the participants' (see {@link
 * AdaptiveLimit}). Each thread counts only its own calls; thread-safe.
 */
public final class RemoteTime {
    private static final ThreadLocal<long[]> SPENT = ThreadLocal.withInitial(() -> new long[1]);

    private RemoteTime() {}

    /** Returns the nanoseconds this thread has spent in remote calls so far. */
    public static long spentNanos() {
        return SPENT.get()[0];
    }

    static void add(long nanos) {
        SPENT.get()[0] += Math.max(0, nanos);
    }
}
