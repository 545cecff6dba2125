package org.sagas.app;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.sagas.adapters.messaging.SagaReplyConsumer;
import org.sagas.orchestrator.ordering.PaymentReconciler;
import org.sagas.adapters.payment.PaymentWorker;
import org.sagas.adapters.sandbox.InventorySandbox;
import org.sagas.adapters.sandbox.PaymentSandbox;
import org.sagas.embedded.FreePorts;
import org.sagas.orchestrator.http.AdmissionControl;
import org.sagas.orchestrator.http.ForegroundFirst;
import org.sagas.orchestrator.saga.ParkedResumer;
import org.sagas.orchestrator.http.ApiServer;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderSaga;
import org.sagas.orchestrator.ordering.OrderService;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.persistence.IdempotencyStore;
import org.sagas.orchestrator.resilience.Deadline;
import org.sagas.orchestrator.resilience.PriorityShedder;
import org.sagas.relay.OutboxDeadLetters;
import org.sagas.relay.OutboxRelay;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The running product: the roles asked for, on embedded or external infrastructure, stopped in
 * reverse order by {@link #close()}. Not thread-safe: start and close from one thread.
 */
final class Product implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Product.class);

    private final Deque<AutoCloseable> started = new ArrayDeque<>();
    private Node node;
    private ApiServer api;
    private InventorySandbox inventorySandbox;
    private PaymentSandbox paymentSandbox;

    /** Everything in one process; the embedded infrastructure unless external servers are set. */
    static Product up(Settings settings, PrintStream out) {
        checkPortsFree(settings, true);
        Product product = new Product();
        try {
            Settings s = settings;
            if (s.embeddedDatabase() || s.embeddedKafka()) {
                // Without a data directory of its own, a run starts empty and leaves nothing behind.
                EmbeddedStack stack = s.dataDir() != null ? new EmbeddedStack(s.dataDir()) : EmbeddedStack.scratch();
                product.started.push(stack);
                out.println("starting embedded " + (s.embeddedDatabase() ? "PostgreSQL " : "")
                        + (s.embeddedKafka() ? "Kafka " : "") + "in " + stack.dataDir());
                s = stack.start(s, s.embeddedDatabase(), s.embeddedKafka());
            }
            product.startRoles(Main.ROLES, s);
            out.println("sagas is up");
            out.println("  orders API   http://" + s.host() + ":" + product.api.port() + "/orders");
            out.println("  health       http://" + s.host() + ":" + product.api.port() + "/health/ready");
            out.println("  metrics      http://" + s.host() + ":" + product.api.port() + "/metrics");
            out.println("  inventory    http://" + s.host() + ":" + product.inventorySandbox.port()
                    + "  (PUT /stock/{sku}, PUT /_faults)");
            out.println("  payments     http://" + s.host() + ":" + product.paymentSandbox.port()
                    + "  (GET /charges?orderId=, PUT /_faults)");
            out.println("  PostgreSQL   " + s.dbUrl());
            out.println("  Kafka        " + s.kafkaBootstrap());
            out.println("Ctrl-C stops everything.");
            out.flush();
            return product;
        } catch (RuntimeException e) {
            product.close();
            throw e;
        }
    }

    /** One role, on external infrastructure (scale-out). */
    static Product role(String role, Settings settings, PrintStream out) {
        if (settings.embeddedDatabase() || (settings.embeddedKafka() && !role.equals("sandbox"))) {
            throw new ConfigurationError("role " + role + " runs on external infrastructure: set SAGA_DB_URL"
                    + (role.equals("sandbox") ? "" : " and SAGA_KAFKA_BOOTSTRAP") + " (or run ./sagas up)");
        }
        checkPortsFree(settings, false);
        Product product = new Product();
        try {
            product.startRoles(List.of(role), settings);
            out.println("sagas " + role + " is up");
            return product;
        } catch (RuntimeException e) {
            product.close();
            throw e;
        }
    }

    int apiPort() {
        return api.port();
    }

    Node node() {
        return node;
    }

    private void startRoles(List<String> roles, Settings s) {
        node = Node.open(s);
        started.push(node);
        node.ensureTopics();
        ForegroundFirst foreground = new ForegroundFirst(s.foregroundBusyAt(), s.foregroundMaxWait(),
                ForegroundFirst.cpuAbove(s.foregroundCpuBusy()), node.registry);
        // Dependencies first: the sandbox before anything calls it, the relay before anything writes.
        if (roles.contains("sandbox")) {
            inventorySandbox = InventorySandbox.start(node.dataSource, s.host(), s.inventoryPort());
            started.push(inventorySandbox);
            paymentSandbox = PaymentSandbox.start(node.dataSource, s.host(), s.paymentPort());
            started.push(paymentSandbox);
        }
        if (roles.contains("relay")) {
            OutboxRelay relay = OutboxRelay.builder().dataSource(node.dataSource).bootstrapServers(s.kafkaBootstrap())
                    .meterRegistry(node.registry).instanceId("relay-" + UUID.randomUUID()).build();
            relay.start();
            node.relayWakeUp(relay::wakeUp);
            started.push(relay);
        }
        if (roles.contains("payment-worker")) {
            var provider = node.paymentClient();
            started.push(new PaymentWorker(node.jdbi, s.kafkaBootstrap(), PaymentWorker.CONSUMER, s.consumerThreads(),
                    command -> node.payments.call(Deadline.after(Duration.ofSeconds(15)), timeout -> provider.charge(
                            command.idempotencyKey(), command.orderId(), command.amountCents(), command.currency(),
                            timeout)),
                    node.relayWakeUp(), foreground::yieldToClients, node.registry).start());
        }
        if (roles.contains("saga-worker")) {
            started.push(new SagaReplyConsumer(node.engine, s.kafkaBootstrap(), SagaReplyConsumer.CONSUMER,
                    Topics.PAYMENTS_EVENTS, s.consumerThreads(), foreground::yieldToClients, node.registry).start());
            started.push(new ParkedResumer(node.engine, OrderSaga.INVENTORY, node.inventory, s.resumeRate(), Duration.ofSeconds(2))
                    .start(Duration.ofMillis(250)));
            started.push(housekeeping(node));
        }
        if (roles.contains("reconciler")) {
            started.push(new PaymentReconciler(new OrderStore(node.jdbi), node.engine, node.paymentClient(), Duration.ofSeconds(5))
                    .start());
            started.push(ReconcilerRole.start(node, ReconcilerSettings.from(s)));
        }
        if (roles.contains("api")) {
            OrderService orders = new OrderService(node.engine, node.orderSaga,
                    new IdempotencyStore(node.jdbi, OrderService.defaultRetention()), new OrderStore(node.jdbi),
                    node.clock, s.answerReserveMillis());
            ApiServer.Admission admission = foreground.around(s.shedding()
                    ? new AdmissionControl(new PriorityShedder(node.registry), node.gauges::pending, s.pendingCap(),
                            node.clock)
                    : ApiServer.Admission.ALWAYS);
            api = ApiServer.start(s.host(), s.apiPort(), orders, new OrderStore(node.jdbi), node::readiness,
                    node.registry, admission, node.clock, s.requestBudgetMillis(),
                    new DeadLetterRoutes(new OutboxDeadLetters(node.dataSource))::register);
            started.push(api);
        } else {
            started.push(OpsServer.start(node, s.host(), s.apiPort()));
        }
    }

    /** Step timeouts, expiry of pending orders, idempotency-key retention. */
    private static AutoCloseable housekeeping(Node node) {
        ScheduledExecutorService scheduler = org.sagas.orchestrator.Schedulers.single("housekeeping");
        IdempotencyStore keys = new IdempotencyStore(node.jdbi, OrderService.defaultRetention());
        scheduler.scheduleWithFixedDelay(() -> guarded("step timeouts", () -> node.engine.timeOutSteps(500)),
                1, 1, TimeUnit.SECONDS);
        scheduler.scheduleWithFixedDelay(() -> guarded("expiry", () -> node.engine.expireParked(500)),
                1, 1, TimeUnit.SECONDS);
        scheduler.scheduleWithFixedDelay(() -> guarded("idempotency keys", () -> keys.deleteExpired(node.clock.instant())),
                1, 600, TimeUnit.SECONDS);
        return scheduler::shutdownNow;
    }

    private static void guarded(String job, Runnable work) {
        try {
            work.run();
        } catch (RuntimeException e) {
            log.error("{} job failed; retried on its next run: {}", job, e.toString(), e);
        }
    }

    private static void checkPortsFree(Settings s, boolean all) {
        checkPort(s.apiPort(), "SAGA_HTTP_PORT / --port");
        if (all) {
            checkPort(s.inventoryPort(), "SAGA_INVENTORY_PORT / --inventory-port");
            checkPort(s.paymentPort(), "SAGA_PAYMENT_PORT / --payment-port");
        }
    }

    private static void checkPort(int port, String setting) {
        if (port != 0 && !FreePorts.isFree(port)) {
            throw new ConfigurationError("port " + port + " is already in use (change " + setting + ")");
        }
    }

    @Override
    public void close() {
        while (!started.isEmpty()) {
            AutoCloseable c = started.pop();
            try {
                c.close();
            } catch (Exception e) {
                log.warn("stopping {} failed: {}", c.getClass().getSimpleName(), e.toString());
            }
        }
    }
}
