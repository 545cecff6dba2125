package org.sagas.orchestrator.lifecycle;

/**
 * What background jobs report, bound to metrics at the edge (the process's one Micrometer
 * binding). Called on the job's thread; implementations must be thread-safe and quick.
 */
public interface JobListener {
    JobListener NONE = new JobListener() {};

    /** A run of {@code job} ended normally. */
    default void onRun(String job, long nanos) {}

    /** A run of {@code job} threw {@code failure}; it runs again on its next period. */
    default void onFailure(String job, Throwable failure) {}
}
