package org.sagas.orchestrator.lifecycle;

import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How a background job reports its runs, the same for every job: a run that fails is logged once
 * (the job's name, when it runs again, the stack trace), counted through the {@link JobListener}
 * and shown in {@link #health()} as a {@link FailureCause}, without its text; a run that succeeds
 * clears the cause. {@link PeriodicJob} reports through one; a job with a loop of its own (a
 * paced one) does the same by calling {@link #succeeded} and {@link #failed}. Thread-safe.
 */
public final class JobRuns {
    private static final Logger log = LoggerFactory.getLogger(JobRuns.class);

    private final String job;
    private final JobListener listener;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Instant> lastRun = new AtomicReference<>();
    /** The kind of the last run's failure; null after a run that succeeded. */
    private final AtomicReference<FailureCause> lastCause = new AtomicReference<>();

    public JobRuns(String job, JobListener listener) {
        this.job = Objects.requireNonNull(job, "job");
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    /** A run that began at {@code startedNanos} ({@link System#nanoTime()}) ended normally. */
    public void succeeded(long startedNanos) {
        lastRun.set(Instant.now());
        lastCause.set(null);
        listener.onRun(job, System.nanoTime() - startedNanos);
    }

    /**
     * A run threw {@code failure}.
     *
     * @param retried when the job tries again, for the log line ("in 250 ms", "on the next tick")
     */
    public void failed(RuntimeException failure, String retried) {
        failures.incrementAndGet();
        lastRun.set(Instant.now());
        lastCause.set(FailureCause.of(failure));
        log.error("{} failed; it runs again {}: {}", job, retried, failure.toString(), failure);
        listener.onFailure(job, failure);
    }

    /** Runs {@code work} once and reports how it ended; never throws what {@code work} threw. */
    public void run(Runnable work, String retried) {
        long started = System.nanoTime();
        try {
            work.run();
            succeeded(started);
        } catch (RuntimeException e) {
            failed(e, retried);
        }
    }

    public ComponentHealth health() {
        FailureCause cause = lastCause.get();
        return new ComponentHealth(cause == null ? "RUNNING" : "FAILING", lastRun.get(), failures.get(), cause);
    }
}
