package org.sagas.orchestrator.lifecycle;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Work run on its own named thread with a fixed delay between runs. A run that throws is logged
 * (once per run, with the job's name and the stack trace), counted through the {@link JobListener}
 * and shown in {@link #health()} as a {@link FailureCause}, without its text; the next run comes as usual, so a job never stops in silence nor retries in a
 * tight loop. Thread-safe.
 */
public final class PeriodicJob implements Component {
    private static final Logger log = LoggerFactory.getLogger(PeriodicJob.class);

    private final String name;
    private final Duration initialDelay;
    private final Duration period;
    private final Runnable work;
    private final JobListener listener;
    private final ScheduledExecutorService scheduler;
    private final AtomicLong failures = new AtomicLong();
    private final AtomicReference<Instant> lastRun = new AtomicReference<>();
    /** The kind of the last run's failure; null after a run that succeeded. */
    private final AtomicReference<FailureCause> lastCause = new AtomicReference<>();

    public PeriodicJob(String name, Duration initialDelay, Duration period, Runnable work, JobListener listener) {
        if (period.isNegative() || period.isZero()) {
            throw new IllegalArgumentException(name + ": period must be positive, was " + period);
        }
        this.name = Objects.requireNonNull(name, "name");
        this.initialDelay = initialDelay;
        this.period = period;
        this.work = Objects.requireNonNull(work, "work");
        this.listener = Objects.requireNonNull(listener, "listener");
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
        long started = System.nanoTime();
        try {
            work.run();
            lastRun.set(Instant.now());
            lastCause.set(null);
            listener.onRun(name, System.nanoTime() - started);
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            lastRun.set(Instant.now());
            lastCause.set(FailureCause.of(e));
            log.error("{} failed; it runs again in {} ms: {}", name, period.toMillis(), e.toString(), e);
            listener.onFailure(name, e);
        }
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
        FailureCause cause = lastCause.get();
        return new ComponentHealth(cause == null ? "RUNNING" : "FAILING", lastRun.get(), failures.get(), cause);
    }
}
