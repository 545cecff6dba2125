package org.sagas.app.warmup;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.sagas.adapters.http.HttpInventoryClient;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.OrderRequestParser;
import org.sagas.orchestrator.ordering.OrderMessages;
import org.sagas.orchestrator.ordering.OrderSaga;
import org.sagas.orchestrator.ordering.OrderService;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.ordering.ResilientInventoryActions;
import org.sagas.orchestrator.ordering.SubmitResult;
import org.sagas.orchestrator.persistence.IdempotencyStore;
import org.sagas.orchestrator.resilience.ResilienceConfig;
import org.sagas.orchestrator.resilience.ResilienceListener;
import org.sagas.orchestrator.ordering.OrderKeys;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaTimings;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Warms the order path before the API reports ready (ADR 0016): a freshly started JVM loads
 * classes, opens connections and interprets code during its first orders, and a first order then
 * spent most of its 500 ms budget before it called inventory, and was parked. This runs
 * {@code orders} dry-run orders through the real code — request parsing, {@link OrderService},
 * the saga engine's SQL and JSON, the inventory client's connection (a look-up that changes
 * nothing) under a resilience stack of its own, the payment reply and the confirmation — each in a
 * database transaction that is rolled back, then touches the API's HTTP server with read-only
 * requests. Nothing is written and nothing is sent to Kafka or to the participants' books.
 *
 * <p>{@link #warmed()} turns true when it is done, when {@code max} has passed, or when it
 * failed; the last two are logged and counted in {@code saga_warm_up_incomplete_total{reason}}.
 * Meters: {@code saga_warm_up_orders} (dry-run orders done), {@code saga_warm_up_seconds}.
 * Thread-safe; {@link #start()} once, {@link #close()} stops it.
 */
public final class WarmUp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(WarmUp.class);
    private static final String CUSTOMER = "warm-up";
    /** The most a dry-run order's inventory look-up may take. */
    private static final Duration PATIENCE = Duration.ofSeconds(5);

    /** What the order path is made of in this process. */
    public record Target(DataSource pool, Clock clock, SagaTimings timings, Duration paymentTimeout,
            long answerReserveMillis, long requestBudgetMillis, Duration idempotencyRetention,
            ResilienceConfig inventoryResilience, URI inventoryUrl) {}

    private final Target target;
    private final int orders;
    private final Duration max;
    private final int threads;
    private final CountDownLatch done = new CountDownLatch(1);
    private final AtomicInteger completed = new AtomicInteger();
    private final AtomicInteger failed = new AtomicInteger();
    private volatile RuntimeException lastError;
    private final MeterRegistry registry;
    private volatile double seconds = Double.NaN;
    private volatile boolean stopping;
    private volatile Thread runner;
    private volatile URI api;

    /**
     * @param orders dry-run orders to run (0: none, ready at once)
     * @param threads how many run side by side (each on its own pooled connection)
     */
    public WarmUp(Target target, int orders, Duration max, int threads, MeterRegistry registry) {
        this.target = target;
        this.orders = orders;
        this.max = max;
        this.threads = Math.max(1, threads);
        this.registry = registry;
        Gauge.builder("saga.warm.up.orders", completed, AtomicInteger::get)
                .description("Dry-run orders the warm-up ran before the API turned ready").register(registry);
        Gauge.builder("saga.warm.up.seconds", this, w -> w.seconds)
                .description("How long the warm-up took (NaN while it runs)").register(registry);
    }

    /** The API of this process, whose HTTP server the warm-up touches too (read-only requests). */
    public WarmUp aimedAt(URI api) {
        this.api = api;
        return this;
    }

    /** Starts warming on a thread of its own; returns at once. */
    public WarmUp start() {
        if (orders == 0 || max.isZero()) {
            seconds = 0;
            done.countDown();
            return this;
        }
        Thread t = new Thread(this::run, "warm-up");
        t.setDaemon(true);
        runner = t;
        t.start();
        return this;
    }

    /** True once the warm-up is over (done, cut short or failed): the API may turn ready. */
    public boolean warmed() {
        return done.getCount() == 0;
    }

    /** Waits until {@link #warmed()}, at most {@code timeout}; returns whether it is. */
    public boolean awaitWarmed(Duration timeout) throws InterruptedException {
        return done.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** {@code checks} with {@code warmed} added: what {@code /health/ready} reports. */
    public Supplier<Map<String, Boolean>> readiness(Supplier<Map<String, Boolean>> checks) {
        return () -> {
            Map<String, Boolean> all = new LinkedHashMap<>(checks.get());
            all.put("warmed", warmed());
            return all;
        };
    }

    @Override
    public void close() {
        stopping = true;
        Thread t = runner;
        if (t != null) {
            t.interrupt();
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    private void run() {
        long start = System.nanoTime();
        long deadline = start + max.toNanos();
        String incomplete = null;
        ProbingInventory inventory = new ProbingInventory(new HttpInventoryClient(target.inventoryUrl()));
        try {
            OrderPath path = new OrderPath(target, inventory);
            List<Thread> workers = new ArrayList<>();
            AtomicInteger next = new AtomicInteger();
            for (int i = 0; i < threads; i++) {
                Thread w = new Thread(() -> {
                    while (!stopping && System.nanoTime() < deadline && next.getAndIncrement() < orders) {
                        try {
                            path.runOne();
                            completed.incrementAndGet();
                        } catch (RuntimeException e) {
                            failed.incrementAndGet();
                            lastError = e;
                        }
                    }
                }, "warm-up-" + i);
                w.setDaemon(true);
                workers.add(w);
                w.start();
            }
            for (Thread w : workers) {
                w.join();
            }
            touchApi(deadline);
            if (failed.get() > 0) {
                incomplete = "error";
                log.warn("warm-up: {} dry-run orders failed, the last with {}", failed.get(), lastError.toString(),
                        lastError);
            } else if (completed.get() < orders) {
                incomplete = stopping ? "stopped" : "time_cap";
            } else if (inventory.failures() > 0) {
                incomplete = "inventory_unreachable";
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            incomplete = "stopped";
        } catch (RuntimeException e) {
            incomplete = "error";
            log.warn("warm-up failed after {} dry-run orders; the API turns ready cold: {}", completed.get(),
                    e.toString(), e);
        } finally {
            seconds = (System.nanoTime() - start) / 1e9;
            if (incomplete != null) {
                Counter.builder("saga.warm.up.incomplete").tag("reason", incomplete)
                        .description("Warm-ups cut short before the API turned ready").register(registry).increment();
            }
            log.info("warm-up: {} of {} dry-run orders in {} ms{}{}; ready", completed.get(), orders,
                    Math.round(seconds * 1000), incomplete == null ? "" : " (incomplete: " + incomplete + ")",
                    inventory.failures() == 0 ? "" : "; inventory look-ups failed " + inventory.failures()
                            + " times, its connection stays cold (last: " + inventory.lastFailure() + ")");
            done.countDown();
        }
    }

    /** Read-only requests to this process's API: Jetty, routing, a not-found order, problem+json. */
    private void touchApi(long deadline) {
        URI api = this.api;
        if (api == null) {
            return;
        }
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        for (int i = 0; i < 20 && !stopping && System.nanoTime() < deadline; i++) {
            for (String path : List.of("/orders/" + UUID.randomUUID(), "/health/live")) {
                try {
                    http.send(HttpRequest.newBuilder(api.resolve(path)).timeout(Duration.ofSeconds(2))
                            .GET().build(), HttpResponse.BodyHandlers.discarding());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                } catch (Exception e) {
                    log.debug("warm-up: GET {} failed: {}", path, e.toString());
                }
            }
        }
    }

    /** The order path over a data source that rolls everything back, and its own inventory stack. */
    private static final class OrderPath {
        private final RollbackOnlyDataSource dryRun;
        private final SagaEngine engine;
        private final OrderService service;
        private final long budgetMillis;
        private final Clock clock;

        OrderPath(Target target, ProbingInventory inventory) {
            this.dryRun = new RollbackOnlyDataSource(target.pool());
            this.clock = target.clock();
            this.budgetMillis = Math.max(target.requestBudgetMillis(), 2 * PATIENCE.toMillis());
            Jdbi jdbi = Jdbi.create(dryRun);
            // A stack of its own, same classes: a look-up that fails here says nothing to the real
            // breaker. One attempt with time to spare, so a loaded machine does not time the
            // look-up out and the order is never parked (nor logged as parked).
            MeterRegistry scratch = new SimpleMeterRegistry();
            ResilienceConfig base = target.inventoryResilience();
            ResilienceConfig patient = base.toBuilder()
                    .timeout(base.timeout().toBuilder().attemptTimeout(PATIENCE).build())
                    .withoutRetries().build();
            OrderSaga saga = new OrderSaga(new ResilientInventoryActions(inventory,
                    ResilientDependency.create(patient, ResilienceListener.NONE), scratch, true),
                    target.paymentTimeout());
            this.engine = new SagaEngine(jdbi, clock, target.timings(), () -> { }).register(saga);
            this.service = new OrderService(engine, new IdempotencyStore(jdbi, target.idempotencyRetention()),
                    new OrderStore(jdbi), clock, target.answerReserveMillis());
        }

        /** One order submitted, charged and confirmed, all rolled back. */
        void runOne() {
            String sku = "WARM-UP-" + (int) (Math.random() * 1000);
            byte[] body = ("{\"customerId\":\"" + CUSTOMER + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + sku
                    + "\",\"quantity\":1,\"unitPriceCents\":990}]}").getBytes(StandardCharsets.UTF_8);
            try {
                dryRun.dryRun(() -> {
                    SubmitResult submitted = service.submit(OrderService.customerClient(CUSTOMER), "warm-up-" + UUID.randomUUID(),
                            OrderRequestParser.parse(body), clock.millis() + budgetMillis);
                    UUID orderId = submitted.orderId();
                    if (submitted.accepted()) {
                        JsonNode captured = Json.mapper().valueToTree(
                                new OrderMessages.PaymentCaptured(orderId, OrderKeys.charge(orderId)));
                        engine.handleReplies(List.of(new SagaEngine.Reply(new IncomingMessage(
                                UUID.randomUUID(), OrderMessages.PAYMENT_CAPTURED, orderId.toString(),
                                orderId.toString(), captured), orderId)));
                    }
                    return submitted;
                });
            } catch (java.sql.SQLException e) {
                throw new IllegalStateException("warm-up could not borrow a connection: " + e.getMessage(), e);
            }
        }
    }
}
