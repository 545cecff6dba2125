package org.sagas.orchestrator.saga;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.sagas.orchestrator.lifecycle.ComponentHealth;
import org.sagas.orchestrator.lifecycle.JobListener;
import org.sagas.orchestrator.lifecycle.JobRuns;
import org.sagas.orchestrator.resilience.CircuitState;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.resilience.TokenBucketPacer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resumes sagas parked on one dependency — for orders, pending confirmations and waiting
 * compensations parked on inventory — oldest first,
 * claimed with {@code SKIP LOCKED} so several instances share the work, paced by a token bucket
 * with slow start so the recovering service is not knocked over: the pace starts again from its
 * slowest each time the breaker lets the dependency on trial (half-open), so the first resumes
 * after an outage reach it one after another, in their age order. Woken when the breaker closes,
 * on a periodic tick and at start; backs off when the breaker trips again. Also runs the other
 * due work (steps whose runner died: their lease ran out).
 *
 * <p>It keeps a loop of its own rather than being a {@link org.sagas.orchestrator.lifecycle.PeriodicJob}
 * (besides its tick it is woken by the breaker and by {@link #wake}, and a pass paces itself), but
 * reports the same way ({@link JobRuns}): a failed pass or resume is logged, counted in the
 * {@link JobListener} and shown in {@link #health()}. Thread-safe.
 */
public final class ParkedResumer implements org.sagas.orchestrator.lifecycle.Component {
    private static final Logger log = LoggerFactory.getLogger(ParkedResumer.class);

    private final SagaEngine engine;
    private final String dependency;
    private final ResilientDependency stack;
    private final TokenBucketPacer pacer;
    private final Duration stepBudget;
    private final Duration tick;
    private final ScheduledExecutorService scheduler = org.sagas.orchestrator.lifecycle.Threads.scheduler("parked-resumer");
    private final AtomicBoolean wakeQueued = new AtomicBoolean();
    /** Resumes run in parallel so the pace, not one thread's round trips, sets the rate. */
    private static final int WORKERS = 8;
    private final java.util.concurrent.ExecutorService workers = org.sagas.orchestrator.lifecycle.Threads.pool(
            "parked-resume-worker", WORKERS);
    private final java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(WORKERS);
    private final AtomicBoolean nothingDue = new AtomicBoolean();
    /** Whether the last pass ended with sagas still due: the next one resumes them in parallel. */
    private volatile boolean backlog;
    private final JobRuns runs;
    private final String retried;
    private final String name;
    /** Left out of the pass over other due work: sagas parked on a dependency some resumer paces. */
    private final Set<String> paced;

    /**
     * @param dependency the name sagas park on ({@code parked_on})
     * @param stack the dependency's resilience stack: its breaker starts and stops resuming
     * @param stepBudget how long one resumed step may take
     * @param tick how often a resume pass runs besides the breaker's closing
     * @param listener told of each pass and of each failure, as a periodic job's are
     */
    public ParkedResumer(SagaEngine engine, String dependency, ResilientDependency stack, double maxPerSecond,
            Duration stepBudget, Duration tick, JobListener listener) {
        this(NAME, engine, dependency, Set.of(dependency), stack, maxPerSecond, stepBudget, tick, listener);
    }

    /**
     * A resumer of its own for one of several dependencies sagas park on: {@code name} tells it from
     * the others in {@code /health/components}, and its pass over other due work leaves out every
     * saga parked on one of {@code paced} (its own dependency among them), so that only the resumer
     * of a saga's dependency resumes it, at that dependency's pace.
     */
    public ParkedResumer(String name, SagaEngine engine, String dependency, Set<String> paced,
            ResilientDependency stack, double maxPerSecond, Duration stepBudget, Duration tick,
            JobListener listener) {
        if (!paced.contains(dependency)) {
            throw new IllegalArgumentException("the paced dependencies " + paced + " lack " + dependency);
        }
        this.name = name;
        this.paced = Set.copyOf(paced);
        this.tick = tick;
        this.runs = new JobRuns(name, listener);
        this.retried = "on the next tick, in " + tick.toMillis() + " ms";
        this.engine = engine;
        this.dependency = dependency;
        this.stack = stack;
        this.pacer = new TokenBucketPacer(maxPerSecond);
        this.stepBudget = stepBudget;
        stack.onStateChange(state -> {
            if (state == CircuitState.OPEN) {
                pacer.backOff();
            } else if (state == CircuitState.HALF_OPEN) {
                // The dependency is back on trial: resumes start again at the slow pace, oldest first,
                // each call well clear of the one before (an idle pacer has doubled up to its maximum).
                pacer.reset();
            } else if (state == CircuitState.CLOSED) {
                // Listeners run under the breaker's lock: hand the database work to the resumer's thread.
                scheduler.execute(() -> {
                    try {
                        int due = engine.makeDue(dependency);
                        log.info("{} breaker closed: resuming {} parked sagas", dependency, due);
                    } catch (RuntimeException e) {
                        runs.failed(e, retried);
                    }
                    tick();
                });
            }
        });
    }

    /** The component's name, in {@code /health/components} and {@code saga_job_failures_total{job}}. */
    public static final String NAME = "parked-resumer";

    @Override
    public String name() {
        return name;
    }

    @Override
    public ComponentHealth health() {
        return runs.health();
    }

    private org.sagas.orchestrator.lifecycle.Activity activity;
    private Duration longestTick;

    /**
     * Ticks less often while nothing happens, up to {@code longest} between two passes; the next
     * touch of {@code activity} brings a pass forward (see {@link
     * org.sagas.orchestrator.lifecycle.PeriodicJob#backingOff}). The breaker's closing still wakes
     * it at once. Call before {@link #start()}.
     */
    public ParkedResumer backingOff(org.sagas.orchestrator.lifecycle.Activity activity, Duration longest) {
        this.activity = activity;
        this.longestTick = longest;
        return this;
    }

    @Override
    public void start() {
        if (activity == null) {
            scheduler.scheduleWithFixedDelay(this::tick, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
            return;
        }
        new org.sagas.orchestrator.lifecycle.PeriodicJob(name, Duration.ZERO, tick, this::tick,
                org.sagas.orchestrator.lifecycle.JobListener.NONE, scheduler).backingOff(activity, longestTick)
                .start();
    }

    /** Runs a resume pass soon, on the resumer's thread. */
    public void wake() {
        if (wakeQueued.compareAndSet(false, true)) {
            scheduler.execute(() -> {
                wakeQueued.set(false);
                tick();
            });
        }
    }

    void tick() {
        runs.run(() -> {
            engine.runDue(200, paced, null, stepBudget.toMillis());
            resumeParked();
        }, retried);
    }

    private void resumeParked() {
        // The pacer sets the rate; up to WORKERS resumes run at once so one slow round trip does not,
        // but only while a backlog is drained. Otherwise (the last pass left nothing due) the few
        // sagas due now are resumed one after another on this thread: resumes sent at once overtake
        // each other, and the oldest order would lose the last units of stock to a younger one.
        boolean inOrder = !backlog;
        long passEnds = System.nanoTime() + Duration.ofMillis(900).toNanos();
        nothingDue.set(false);
        try {
            resumeParked(passEnds, inOrder);
        } finally {
            backlog = !nothingDue.get();
        }
    }

    private void resumeParked(long passEnds, boolean inOrder) {
        while (System.nanoTime() < passEnds && stack.state() != CircuitState.OPEN && !nothingDue.get()) {
            if (!pacer.tryAcquire()) {
                Duration wait = pacer.timeUntilNextPermit();
                if (System.nanoTime() + wait.toNanos() > passEnds) {
                    return;
                }
                sleep(wait);
                continue;
            }
            try {
                if (!inFlight.tryAcquire(500, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            if (inOrder) {
                resumeOne();
            } else {
                workers.execute(this::resumeOne);
            }
        }
    }

    /** Resumes the oldest due saga, if any; gives back its {@link #inFlight} place. */
    private void resumeOne() {
        try {
            if (engine.runDue(1, Set.of(), dependency, stepBudget.toMillis()) == 0) {
                nothingDue.set(true);
            }
        } catch (RuntimeException e) {
            // It stays parked and is tried again; the failure shows as the resumer's.
            runs.failed(e, retried);
        } finally {
            inFlight.release();
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(Math.max(1, d.toMillis()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public boolean stop(Duration bound) {
        scheduler.shutdownNow();
        workers.shutdownNow();
        try {
            return scheduler.awaitTermination(bound.toMillis(), TimeUnit.MILLISECONDS)
                    && workers.awaitTermination(bound.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
