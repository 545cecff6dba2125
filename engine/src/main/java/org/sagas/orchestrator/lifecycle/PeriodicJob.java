package org.sagas.orchestrator.lifecycle;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Work run on its own named thread with a fixed delay between runs. A run that throws is logged
 * (once per run, with the job's name and the stack trace), counted through the {@link JobListener}
 * and shown in {@link #health()} as a {@link FailureCause}, without its text ({@link JobRuns}); the
 * next run comes as usual, so a job never stops in silence nor retries in a tight loop.
 *
 * <p>{@link #backingOff} makes the delay double after each run that saw no {@link Activity}
 * since the one before, up to a longest delay, and come back to the period on the next touch: a
 * job that looks for work in the database then costs next to nothing in an idle product. Work
 * that falls due by time alone (a step deadline, a parked saga's retry) while nothing at all
 * happens is then found up to that longest delay late (docs/benchmarks.md, "Idle"). Thread-safe.
 */
public final class PeriodicJob implements Component {
    private final String name;
    private final Duration initialDelay;
    private final Duration period;
    private final Runnable work;
    private final JobRuns runs;
    private final String retried;
    private final ScheduledExecutorService scheduler;
    private Activity activity;
    private Duration longest;
    /** Guarded by this: the next run, the delay before it and the activity count at the last run. */
    private ScheduledFuture<?> next;
    private long delayMillis;
    private long seen = -1;
    private boolean stopped;

    public PeriodicJob(String name, Duration initialDelay, Duration period, Runnable work, JobListener listener) {
        this(name, initialDelay, period, work, listener, Threads.scheduler(name));
    }

    /** As above, on {@code scheduler} (shared with its owner's other work, so never two runs at once). */
    public PeriodicJob(String name, Duration initialDelay, Duration period, Runnable work, JobListener listener,
            ScheduledExecutorService scheduler) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException(name + ": period must be positive, was " + period);
        }
        this.name = Objects.requireNonNull(name, "name");
        this.initialDelay = initialDelay;
        this.period = period;
        this.work = Objects.requireNonNull(work, "work");
        this.runs = new JobRuns(name, listener);
        this.retried = "in " + period.toMillis() + " ms";
        this.scheduler = Objects.requireNonNull(scheduler, "scheduler");
    }

    @Override
    public String name() {
        return name;
    }

    /**
     * Backs off while nothing happens: after a run with no touch of {@code activity} since the
     * previous run the delay doubles, up to {@code longest}; a touch brings the next run forward to
     * now and the delay back to the period. A {@code longest} not beyond the period changes
     * nothing. Call before {@link #start()}.
     */
    public PeriodicJob backingOff(Activity activity, Duration longest) {
        if (longest.compareTo(period) > 0) {
            this.activity = Objects.requireNonNull(activity, "activity");
            this.longest = longest;
            activity.onWake(this::wake);
        }
        return this;
    }

    @Override
    public void start() {
        if (activity == null) {
            scheduler.scheduleWithFixedDelay(this::runOnce, initialDelay.toMillis(), period.toMillis(),
                    TimeUnit.MILLISECONDS);
            return;
        }
        synchronized (this) {
            delayMillis = period.toMillis();
            next = scheduler.schedule(this::runAndReschedule, initialDelay.toMillis(), TimeUnit.MILLISECONDS);
        }
    }

    private void runAndReschedule() {
        runOnce();
        synchronized (this) {
            long now = activity.count();
            delayMillis = now == seen ? Math.min(longest.toMillis(), delayMillis * 2) : period.toMillis();
            seen = now;
            if (delayMillis > period.toMillis()) {
                activity.quiet();
            }
            if (!stopped) {
                next = scheduler.schedule(this::runAndReschedule, delayMillis, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** Something happened: a job waiting longer than its period runs now. */
    private void wake() {
        synchronized (this) {
            if (stopped || next == null || delayMillis <= period.toMillis()) {
                return;
            }
            if (next.cancel(false)) {
                delayMillis = period.toMillis();
                next = scheduler.schedule(this::runAndReschedule, 0, TimeUnit.MILLISECONDS);
            }
        }
    }

    /** One run, as the schedule makes it; public for tests and for running a pass on demand. */
    public void runOnce() {
        runs.run(work, retried);
    }

    @Override
    public boolean stop(Duration bound) {
        synchronized (this) {
            stopped = true;
        }
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
