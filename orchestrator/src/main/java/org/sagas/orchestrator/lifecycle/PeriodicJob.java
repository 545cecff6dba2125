package org.sagas.orchestrator.lifecycle;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * Work run on its own named thread with a fixed delay between runs. A run that throws is logged
 * (once per run, with the job's name and the stack trace), counted through the {@link JobListener}
 * and shown in {@link #health()} as a {@link FailureCause}, without its text ({@link JobRuns}); the
 * next run comes as usual, so a job never stops in silence nor retries in a tight loop. Thread-safe.
 */
public final class PeriodicJob implements Component {
    private final String name;
    private final Duration initialDelay;
    private final Duration period;
    private final Runnable work;
    private final JobRuns runs;
    private final String retried;
    private final ScheduledExecutorService scheduler;

    public PeriodicJob(String name, Duration initialDelay, Duration period, Runnable work, JobListener listener) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException(name + ": period must be positive, was " + period);
        }
        this.name = Objects.requireNonNull(name, "name");
        this.initialDelay = initialDelay;
        this.period = period;
        this.work = Objects.requireNonNull(work, "work");
        this.runs = new JobRuns(name, listener);
        this.retried = "in " + period.toMillis() + " ms";
        this.scheduler = Threads.scheduler(name);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start() {
        scheduler.scheduleWithFixedDelay(this::runOnce, initialDelay.toMillis(), period.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** One run, as the schedule makes it; public for tests and for running a pass on demand. */
    public void runOnce() {
        runs.run(work, retried);
    }

    @Override
    public boolean stop(Duration bound) {
        scheduler.shutdownNow();
        try {
            return scheduler.awaitTermination(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public ComponentHealth health() {
        return runs.health();
    }
}
