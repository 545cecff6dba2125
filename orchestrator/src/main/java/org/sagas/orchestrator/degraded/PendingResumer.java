package org.sagas.orchestrator.degraded;

import java.time.Duration;
import java.util.Set;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.sagas.orchestrator.ordering.OrderSaga;
import org.sagas.orchestrator.resilience.CircuitState;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.resilience.TokenBucketPacer;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Resumes sagas parked on inventory — pending orders and waiting compensations — oldest first,
 * claimed with {@code SKIP LOCKED} so several instances share the work, paced by a token bucket
 * with slow start so the recovering service is not knocked over. Woken when the breaker closes,
 * on a periodic tick and at start; backs off when the breaker trips again. Also runs the other
 * due work (steps whose runner died: their lease ran out). Thread-safe.
 */
public final class PendingResumer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PendingResumer.class);

    private final SagaEngine engine;
    private final ResilientDependency inventory;
    private final TokenBucketPacer pacer;
    private final Duration stepBudget;
    private final ScheduledExecutorService scheduler = org.sagas.orchestrator.Schedulers.single("pending-resumer");
    private final AtomicBoolean wakeQueued = new AtomicBoolean();
    /** Resumes run in parallel so the pace, not one thread's round trips, sets the rate. */
    private final java.util.concurrent.ExecutorService workers = java.util.concurrent.Executors.newFixedThreadPool(
            WORKERS, r -> {
                Thread t = new Thread(r, "pending-resume-worker");
                t.setDaemon(true);
                return t;
            });
    private static final int WORKERS = 8;
    private final java.util.concurrent.Semaphore inFlight = new java.util.concurrent.Semaphore(WORKERS);
    private final AtomicBoolean nothingDue = new AtomicBoolean();

    public PendingResumer(SagaEngine engine, ResilientDependency inventory, double maxPerSecond, Duration stepBudget) {
        this.engine = engine;
        this.inventory = inventory;
        this.pacer = new TokenBucketPacer(maxPerSecond);
        this.stepBudget = stepBudget;
        inventory.onStateChange(state -> {
            if (state == CircuitState.OPEN) {
                pacer.backOff();
            } else if (state == CircuitState.CLOSED) {
                // Listeners run under the breaker's lock: hand the database work to the resumer's thread.
                scheduler.execute(() -> {
                    int due = engine.makeDue(OrderSaga.INVENTORY);
                    log.info("inventory breaker closed: resuming {} parked sagas", due);
                    tick();
                });
            }
        });
    }

    public PendingResumer start(Duration tick) {
        scheduler.scheduleWithFixedDelay(this::tick, 0, tick.toMillis(), TimeUnit.MILLISECONDS);
        return this;
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
        try {
            engine.runDue(200, Set.of(OrderSaga.INVENTORY), null, stepBudget.toMillis());
            resumeParked();
        } catch (RuntimeException e) {
            log.error("resume pass failed; next tick retries: {}", e.toString(), e);
        }
    }

    private void resumeParked() {
        // The pacer sets the rate; up to WORKERS resumes run at once so one slow round trip does not.
        long passEnds = System.nanoTime() + Duration.ofMillis(900).toNanos();
        nothingDue.set(false);
        while (System.nanoTime() < passEnds && inventory.state() != CircuitState.OPEN && !nothingDue.get()) {
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
            workers.execute(() -> {
                try {
                    if (engine.runDue(1, Set.of(), OrderSaga.INVENTORY, stepBudget.toMillis()) == 0) {
                        nothingDue.set(true);
                    }
                } catch (RuntimeException e) {
                    log.error("resuming a parked saga failed; it stays parked: {}", e.toString(), e);
                } finally {
                    inFlight.release();
                }
            });
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
    public void close() {
        scheduler.shutdownNow();
        workers.shutdownNow();
        try {
            scheduler.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
