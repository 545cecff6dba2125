package org.sagas.orchestrator.admin;

import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ordering.OrderCursor;
import org.sagas.orchestrator.ordering.OrderFilter;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.ordering.OrderSummary;
import org.sagas.orchestrator.resilience.TokenBucketPacer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs batches (a background job: {@link #start()}, {@link #close()}): takes a running batch whose
 * lease is free, walks its sagas oldest first from the stored cursor, and acts on each at most
 * {@code maxRatePerSecond} — paced by the resilience {@link TokenBucketPacer}, slow start
 * included, as parked orders are resumed — a few at a time so that one slow saga does not set the
 * pace. The cursor moves once a page is done; a saga the batch already acted on (its audit row)
 * is skipped, so a batch taken over after a crash does each saga once. A stopped batch is noticed
 * within a second. Closing gives the lease back, so a restarted process takes over at once.
 * Thread-safe.
 */
public final class BatchRunner implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(BatchRunner.class);
    private static final int PAGE = 50;
    /** Few: the actions share the process's small connection pool (ADR 0007) with the foreground. */
    private static final int WORKERS = 4;
    private static final Duration RENEW_EVERY = Duration.ofSeconds(1);
    private static final Duration PERIOD = Duration.ofSeconds(1);
    static final Duration LONGEST_WAIT = Duration.ofSeconds(8);

    private final BatchStore batches;
    private final OrderStore orders;
    private final SagaActions actions;
    private final AuditLog audit;
    private final Clock clock;
    private final Duration lease;
    private final String runner = "batch-runner-" + UUID.randomUUID();
    private final AtomicBoolean running = new AtomicBoolean(true);
    private final AtomicBoolean wakeQueued = new AtomicBoolean();
    /** Only on the scheduler's thread: the wait before the next look. */
    private long waitMillis = PERIOD.toMillis();
    private final ScheduledExecutorService scheduler = org.sagas.orchestrator.lifecycle.Threads.scheduler("admin-batches");
    private final ExecutorService workers = org.sagas.orchestrator.lifecycle.Threads.pool("admin-batch-worker", WORKERS);
    private final Semaphore inFlight = new Semaphore(WORKERS);

    BatchRunner(BatchStore batches, OrderStore orders, SagaActions actions, AuditLog audit, Clock clock,
            Duration lease) {
        this.batches = batches;
        this.orders = orders;
        this.actions = actions;
        this.audit = audit;
        this.clock = clock;
        this.lease = lease;
    }

    /**
     * Looks for batches to run every second while it finds some; after each look that finds none it
     * waits twice as long, up to {@link #LONGEST_WAIT}, so that an idle process does not ask the
     * database every second (docs/benchmarks.md, "Idle"). A batch created here wakes it at once; one
     * created by another process, or handed back by one that stopped, is found within that wait.
     */
    public BatchRunner start() {
        scheduler.execute(this::lookAndReschedule);
        return this;
    }

    private void lookAndReschedule() {
        boolean found = tick();
        waitMillis = found ? PERIOD.toMillis() : Math.min(LONGEST_WAIT.toMillis(), waitMillis * 2);
        if (running.get()) {
            try {
                scheduler.schedule(this::lookAndReschedule, waitMillis, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closing) {
                // closed meanwhile: no next look
            }
        }
    }

    /** Looks at once (a batch was just created). */
    void wake() {
        if (wakeQueued.compareAndSet(false, true)) {
            scheduler.execute(() -> {
                wakeQueued.set(false);
                tick();
                waitMillis = PERIOD.toMillis();
            });
        }
    }

    /** Runs the batches there are; whether there was one (or a failure, worth looking again soon). */
    private boolean tick() {
        boolean found = false;
        try {
            while (running.get()) {
                var batch = batches.claim(runner, clock.instant(), clock.instant().plus(lease));
                if (batch.isEmpty()) {
                    return found;
                }
                found = true;
                run(batch.get());
            }
        } catch (RuntimeException e) {
            log.error("batch runner pass failed; the next one retries: {}", e.toString(), e);
            return true;
        }
        return found;
    }

    private void run(Batch batch) {
        log.info("batch {} ({} of {} sagas, at most {}/s) runs here{}", batch.batchId(), batch.action(),
                batch.matched(), batch.maxRate(), batch.cursor() == null ? "" : ", resumed after " + batch.cursor());
        OrderFilter filter = FilterParams.fromJson(Json.mapper().valueToTree(batch.filter()))
                .createdBefore(batch.snapshotAt());
        TokenBucketPacer pacer = new TokenBucketPacer(batch.maxRate());
        Operator who = new Operator(batch.actor(), Role.OPERATOR);
        OrderCursor cursor = batch.cursor();
        long renewedAt = System.nanoTime();
        try {
            while (true) {
                List<OrderSummary> page = orders.search(filter, cursor, PAGE, false);
                if (page.isEmpty()) {
                    batches.finish(batch.batchId(), runner, Batch.COMPLETED, null);
                    log.info("batch {} completed: {}", batch.batchId(), audit.outcomes(batch.batchId()));
                    return;
                }
                for (OrderSummary item : page) {
                    if (!running.get()) {
                        drain();
                        batches.release(batch.batchId(), runner);
                        log.info("batch {} handed back at {}: this process stops", batch.batchId(), cursor);
                        return;
                    }
                    if (audit.batchDid(batch.batchId(), item.orderId().toString())) {
                        continue;
                    }
                    while (!pacer.tryAcquire()) {
                        sleep(pacer.timeUntilNextPermit());
                        if (System.nanoTime() - renewedAt > RENEW_EVERY.toNanos()) {
                            if (!batches.renew(batch.batchId(), runner, clock.instant().plus(lease), null)) {
                                stopped(batch);
                                return;
                            }
                            renewedAt = System.nanoTime();
                        }
                    }
                    inFlight.acquireUninterruptibly();
                    workers.execute(() -> act(batch, who, item));
                }
                drain();
                cursor = page.get(page.size() - 1).cursor();
                if (!batches.renew(batch.batchId(), runner, clock.instant().plus(lease), cursor)) {
                    stopped(batch);
                    return;
                }
                renewedAt = System.nanoTime();
            }
        } catch (RuntimeException e) {
            // Keeps the lease until it runs out, so a batch failing here is not retried in a tight loop.
            log.error("batch {} failed at {}; retried once its lease runs out: {}", batch.batchId(), cursor,
                    e.toString(), e);
            drain();
        }
    }

    private void stopped(Batch batch) {
        drain();
        log.info("batch {} was stopped; {}", batch.batchId(), audit.outcomes(batch.batchId()));
    }

    private void act(Batch batch, Operator who, OrderSummary item) {
        try {
            if ("retry".equals(batch.action())) {
                actions.retry(who, item.orderId(), batch.reason(), batch.batchId());
            } else if (Batch.MIGRATE.equals(batch.action())) {
                actions.migrate(who, item.orderId(), batch.toVersion(), batch.reason(), batch.batchId());
            } else {
                actions.cancel(who, item.orderId(), batch.reason(), batch.batchId());
            }
        } catch (RuntimeException e) {
            log.warn("batch {}: {} of order {} failed: {}", batch.batchId(), batch.action(), item.orderId(),
                    e.toString());
            try {
                audit.record(new AuditLog.Line(who, batch.action(), item.orderId().toString(), batch.reason(),
                        "FAILED", e.toString(), batch.batchId()));
            } catch (RuntimeException alsoFailed) {
                log.warn("batch {}: could not record the failure for order {}: {}", batch.batchId(), item.orderId(),
                        alsoFailed.toString());
            }
        } finally {
            inFlight.release();
        }
    }

    /** Waits for the actions under way. */
    private void drain() {
        inFlight.acquireUninterruptibly(WORKERS);
        inFlight.release(WORKERS);
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(Math.max(1, Math.min(200, d.toMillis())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        running.set(false);
        scheduler.shutdown();
        try {
            if (!scheduler.awaitTermination(30, TimeUnit.SECONDS)) {
                scheduler.shutdownNow();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        workers.shutdownNow();
    }
}
