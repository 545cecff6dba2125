package org.sagas.app;

import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.sagas.adapters.messaging.OrderCommandConsumer;
import org.sagas.adapters.messaging.SagaReplyConsumer;
import org.sagas.orchestrator.ordering.PaymentReconciler;
import org.sagas.adapters.payment.PaymentWorker;
import org.sagas.app.warmup.WarmUp;
import org.sagas.embedded.FreePorts;
import org.sagas.orchestrator.http.AdmissionControl;
import org.sagas.orchestrator.http.OrderCommands;
import org.sagas.orchestrator.http.ForegroundFirst;
import org.sagas.orchestrator.saga.ParkedResumer;
import org.sagas.orchestrator.saga.SagaFleet;
import org.sagas.app.metrics.SagaVersionGauges;
import org.sagas.orchestrator.saga.UnknownLiveVersions;
import org.sagas.orchestrator.http.ApiServer;
import org.sagas.orchestrator.http.RequestBudget;
import org.sagas.orchestrator.http.ClientAccess;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.OrchestratorSettings;
import org.sagas.orchestrator.config.SettingsTable;
import org.sagas.orchestrator.lifecycle.Component;
import org.sagas.orchestrator.lifecycle.Components;
import org.sagas.orchestrator.lifecycle.JobListener;
import org.sagas.orchestrator.lifecycle.PeriodicJob;
import org.sagas.orchestrator.ordering.OrderSaga;
import org.sagas.orchestrator.ordering.OrderService;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.persistence.IdempotencyStore;
import org.sagas.orchestrator.persistence.TableRetention;
import org.sagas.orchestrator.saga.IncidentCause;
import org.sagas.orchestrator.resilience.Deadline;
import org.sagas.orchestrator.resilience.AdaptiveLimit;
import org.sagas.orchestrator.resilience.PriorityShedder;
import org.sagas.orchestrator.resilience.Deadline;
import org.sagas.orchestrator.resilience.SchedulingLag;
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
    private Components components;
    private ApiServer api;
    private AdminRole admin;
    /** Where a generated admin token goes when none is configured; null for none. */
    private java.nio.file.Path adminTokenDir;
    private WarmUp warmUp;
    private SandboxParticipants sandbox;
    /** Checked before anything starts: an open API refuses to face the network (docs/security.md). */
    private ClientAccess access;
    /** Traces: off unless OTEL_* variables ask (ADR 0018). */
    private Telemetry telemetry = Telemetry.off();

    /** Everything in one process; the embedded infrastructure unless external servers are set. */
    static Product up(Settings settings, PrintStream out) {
        return up(settings, out, null);
    }

    /**
     * As {@link #up(Settings, PrintStream)}, tracing with {@code telemetry}; null: as the OTEL_*
     * variables ask (the product then closes the SDK it started).
     */
    static Product up(Settings settings, PrintStream out, Telemetry telemetry) {
        checkPortsFree(settings, true, true);
        Product product = new Product();
        product.telemetry(telemetry);
        product.access = ApiProtection.from(settings).access(settings.host());
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
            product.adminTokenDir = product.adminTokenDir(s);
            s = SandboxSettings.forUp(s, product.adminTokenDir);
            product.startRoles(java.util.EnumSet.allOf(Role.class), s);
            product.awaitWarm(s);
            out.println("sagas is up");
            out.println("  orders API   http://" + s.host() + ":" + product.api.port() + "/orders");
            out.println("  health       http://" + s.host() + ":" + product.api.port() + "/health/ready");
            out.println("  metrics      http://" + s.host() + ":" + product.api.port() + "/metrics");
            out.println("  inventory    http://" + s.host() + ":" + product.sandbox.inventoryPort()
                    + "  (PUT /stock/{sku}, PUT /_faults)");
            out.println("  payments     http://" + s.host() + ":" + product.sandbox.paymentPort()
                    + "  (PUT /_faults; GET /charges?orderId= with the ledger token)");
            out.println("  fraud        http://" + s.host() + ":" + product.sandbox.fraudPort()
                    + "  (PUT /_faults; screens the orders of the saga's version 2)");
            if (SandboxSettings.from(settings).ledgerToken().isEmpty()) {
                out.println("  ledger token " + product.adminTokenDir.resolve(SandboxSettings.TOKEN_FILE)
                        + "  (generated, mode 600; Authorization: Bearer <it>)");
            }
            product.printAdmin(s, out);
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

    /** Some roles in one process, on external infrastructure (scale-out). */
    static Product roles(Set<Role> roles, Settings settings, PrintStream out) {
        String role = String.join(",", Role.labels(roles));
        boolean sandboxOnly = roles.equals(Set.of(Role.SANDBOX));
        if (settings.embeddedDatabase() || (settings.embeddedKafka() && !sandboxOnly)) {
            throw new ConfigurationError("role " + role + " runs on external infrastructure: set SAGA_DB_URL"
                    + (sandboxOnly ? "" : " and SAGA_KAFKA_BOOTSTRAP") + " (or run ./sagas up)");
        }
        checkPortsFree(settings, false, roles.equals(Set.of(Role.API)));
        Product product = new Product();
        product.telemetry(null);
        product.access = ApiProtection.from(settings).access(settings.host());
        try {
            product.adminTokenDir = settings.dataDir();
            product.startRoles(roles, settings);
            product.awaitWarm(settings);
            out.println("sagas " + role + " is up");
            return product;
        } catch (RuntimeException e) {
            product.close();
            throw e;
        }
    }

    /** Uses {@code given}, or starts what the environment asks for; either way closed last. */
    private void telemetry(Telemetry given) {
        telemetry = given != null ? given : Telemetry.fromEnvironment();
        started.push(telemetry);
    }

    /** Waits for the API's warm-up (bounded by its own cap), so "is up" means ready at speed. */
    private void awaitWarm(Settings s) {
        if (warmUp == null) {
            return;
        }
        try {
            warmUp.awaitWarmed(s.warmUpMax().plusSeconds(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String loopbackFor(String host) {
        return host.equals("0.0.0.0") || host.equals("::") || host.isBlank() ? "127.0.0.1" : host;
    }

    int apiPort() {
        return api.port();
    }

    Node node() {
        return node;
    }

    /** What every role's wiring reads: the settings, the jobs' listener and back-off, the roles beside it. */
    private record Wiring(Settings s, SettingsTable.Values o, JobListener jobs, Duration idle,
            ForegroundFirst foreground, Set<Role> roles) {}

    private void startRoles(Set<Role> wanted, Settings s) {
        Set<Role> roles = java.util.EnumSet.copyOf(wanted); // iterated in start order
        if (roles.contains(Role.SANDBOX)) {
            SandboxModule.require(); // before anything starts, and before a sandbox class is touched
        }
        // The participants' database work is told apart from the product's by this name (benchmarks).
        node = Node.open(s, roles.equals(Set.of(Role.SANDBOX)) ? Node.SANDBOX_APPLICATION : Node.APPLICATION,
                telemetry.tracing());
        started.push(node);
        node.ensureTopics();
        SettingsTable.Values o = s.orchestrator();
        node.checkTopicRetention(o.get(OrchestratorSettings.INBOX_RETENTION));
        components = new Components(o.get(OrchestratorSettings.STOP_WAIT));
        started.push(components);
        JobListener jobs = new MicrometerJobListener(node.registry);
        Duration idle = o.get(OrchestratorSettings.IDLE_BACKOFF);
        if (roles.stream().anyMatch(Role::runsSagas)) {
            // Before any saga work: no process runs instances of a version nobody has (docs/decisions/0025).
            Duration heartbeat = o.get(OrchestratorSettings.VERSIONS_HEARTBEAT);
            SagaFleet fleet = new SagaFleet(node.jdbi, node.engine, heartbeat);
            try {
                fleet.checkLiveVersions();
            } catch (UnknownLiveVersions e) {
                throw new ConfigurationError(e.getMessage(), e);
            }
            // Which versions still have live sagas: one that has none may leave a later build (docs/operations.md).
            fleet.census().forEach(c -> log.info("saga {}: {} live {}{}", c.definition(), c.liveTotal(),
                    c.liveInstances(), c.inThisProcess() ? (c.startsNew() ? ", new sagas start on it" : "")
                            : ", not in this build"));
            SagaVersionGauges versionGauges = new SagaVersionGauges(fleet, node.registry);
            components.start(new PeriodicJob("saga-versions", Duration.ZERO, heartbeat, () -> {
                fleet.heartbeat();
                versionGauges.refresh();
            }, jobs));
        }
        components.start(new PeriodicJob("order-gauges", Duration.ZERO, o.get(OrchestratorSettings.GAUGES_PERIOD),
                node.gauges::refresh, jobs).backingOff(node.activity, idle));
        components.start(new PeriodicJob("incident-gauges", Duration.ZERO,
                o.get(OrchestratorSettings.INCIDENT_GAUGES_PERIOD), node.incidents::refresh, jobs)
                .backingOff(node.activity, idle)); // a raise here counts at once (Node)
        ForegroundFirst foreground = new ForegroundFirst(o.get(OrchestratorSettings.FOREGROUND_BUSY_AT), o.get(OrchestratorSettings.FOREGROUND_MAX_WAIT),
                ForegroundFirst.cpuAbove(o.get(OrchestratorSettings.FOREGROUND_CPU_PERCENT) / 100.0), node.registry);
        // Dependencies first, in the roles' order: the sandbox before anything calls it, the relay
        // before anything writes.
        Wiring w = new Wiring(s, o, jobs, idle, foreground, roles);
        for (Role role : roles) {
            switch (role) {
                case SANDBOX -> sandbox = SandboxParticipants.start(node.dataSource, s, components);
                case RELAY -> startRelay(w);
                case PAYMENT_WORKER -> startPaymentWorker(w);
                case SAGA_WORKER -> startSagaWorker(w);
                case RECONCILER -> startReconciler(w);
                case API -> startApi(w);
                default -> throw new IllegalStateException("no wiring for role " + role);
            }
        }
        if (!roles.contains(Role.API)) {
            components.start(Component.of("ops-server", OpsServer.start(node::readiness, node.registry, s.host(),
                    s.apiPort(), this::componentRoutes, ApiProtection.from(s).limits())));
        }
    }

    private void startRelay(Wiring w) {
        Settings s = w.s();
        SettingsTable.Values o = w.o();
        OutboxRelay.Builder builder = OutboxRelay.builder().dataSource(node.dataSource)
                .bootstrapServers(s.kafkaBootstrap()).meterRegistry(node.registry)
                .instanceId("relay-" + UUID.randomUUID())
                // Idle, it reads rarely: this process's writers wake it on commit (ADR 0024).
                .idlePollInterval(o.get(OrchestratorSettings.RELAY_IDLE_POLL));
        s.kafka().config().forEach(builder::producerProperty); // signs in as the relay's user, if any
        OutboxRelay relay = builder.build();
        relay.start();
        node.relayWakeUp(relay::wakeUp);
        components.start(Component.of("outbox-relay", relay));
    }

    private void startPaymentWorker(Wiring w) {
        Settings s = w.s();
        SettingsTable.Values o = w.o();
        ForegroundFirst foreground = w.foreground();
        var provider = node.paymentClient();
        Duration callBudget = o.get(OrchestratorSettings.PAYMENT_CALL_BUDGET);
        // With the saga worker in this process the outcome goes straight to its engine (ADR 0019).
        PaymentWorker.ReplySink outbox = PaymentWorker.outbox(node.jdbi, node.relayWakeUp());
        PaymentWorker.ReplySink replies = w.roles().contains(Role.SAGA_WORKER)
                ? PaymentWorker.toEngine(node.engine, node.tracing, outbox) : outbox;
        components.start(Component.of("payment-worker", new PaymentWorker(replies, s.kafka(),
                PaymentWorker.CONSUMER, s.consumerThreads(), node.paymentPermits(),
                command -> node.payments.call(Deadline.after(callBudget), timeout -> provider.charge(
                        command.idempotencyKey(), command.orderId(), command.amountCents(), command.currency(),
                        timeout)),
                refund -> node.payments.call(Deadline.after(callBudget), timeout -> provider.refund(
                        refund.refundKey(), refund.chargeKey(), timeout)),
                foreground::yieldToClients, node.registry,
                o.get(OrchestratorSettings.CONSUMER_RETRY),
                (record, reason, cause) -> SagaReplyConsumer.sagaId(record.key()).ifPresent(id -> node.engine
                        .raiseIncident(id, IncidentCause.COMMAND_DEAD_LETTERED, "charge command " + record.topic()
                                + "/" + record.partition() + "@" + record.offset() + " dead-lettered: " + reason)))
                .tracing(node.tracing).start()));
    }

    private void startSagaWorker(Wiring w) {
        Settings s = w.s();
        SettingsTable.Values o = w.o();
        JobListener jobs = w.jobs();
        Duration idle = w.idle();
        ForegroundFirst foreground = w.foreground();
        // With the payment worker in this process its replies skip the topic (ADR 0019): what is
        // left on it (another process's replies) needs one consumer, not one per core's worth,
        // each with its own fetches and heartbeats while idle (docs/decisions/0029).
        int replyConsumers = w.roles().contains(Role.PAYMENT_WORKER) ? 1 : s.consumerThreads();
        components.start(Component.of("reply-consumer", new SagaReplyConsumer(node.engine, s.kafka(),
                SagaReplyConsumer.CONSUMER, Topics.PAYMENTS_EVENTS, replyConsumers,
                foreground::yieldToClients, node.registry, o.get(OrchestratorSettings.CONSUMER_RETRY))
                .tracing(node.tracing).start()));
        // One resumer per dependency orders park on, each paced by and woken with its own breaker.
        Set<String> paced = Set.of(OrderSaga.INVENTORY, OrderSaga.FRAUD);
        components.start(new ParkedResumer(ParkedResumer.NAME, node.engine, OrderSaga.INVENTORY, paced,
                node.inventory, o.get(OrchestratorSettings.RESUME_MAX_RATE), o.get(OrchestratorSettings.RESUME_STEP_BUDGET),
                o.get(OrchestratorSettings.RESUME_TICK), jobs).backingOff(node.activity, idle));
        components.start(new ParkedResumer(ParkedResumer.NAME + "-" + OrderSaga.FRAUD, node.engine,
                OrderSaga.FRAUD, paced, node.fraud, o.get(OrchestratorSettings.RESUME_MAX_RATE), o.get(OrchestratorSettings.RESUME_STEP_BUDGET),
                o.get(OrchestratorSettings.RESUME_TICK), jobs).backingOff(node.activity, idle));
        Duration period = o.get(OrchestratorSettings.HOUSEKEEPING_PERIOD);
        components.start(new PeriodicJob("step-timeouts", period, period, () -> node.engine.timeOutSteps(500),
                jobs).backingOff(node.activity, idle));
        components.start(new PeriodicJob("parked-expiry", period, period, () -> node.engine.expireParked(500),
                jobs).backingOff(node.activity, idle));
        Duration stall = o.get(OrchestratorSettings.COMPENSATION_STALL);
        Duration stallPeriod = o.get(OrchestratorSettings.STALLED_COMPENSATIONS_PERIOD);
        components.start(new PeriodicJob("stalled-compensations", stallPeriod, stallPeriod,
                () -> node.engine.flagStalledCompensations(stall, 500), jobs));
        List<TableRetention.Rule> rules = new ArrayList<>(List.of(TableRetention.idempotencyKeys(),
                TableRetention.inbox(o.get(OrchestratorSettings.INBOX_RETENTION))));
        rules.addAll(TableRetention.endedSagas(o.get(OrchestratorSettings.SAGA_RETENTION)));
        rules.addAll(List.of(TableRetention.audit(o.get(OrchestratorSettings.AUDIT_RETENTION)),
                TableRetention.batches(o.get(OrchestratorSettings.BATCH_RETENTION)),
                TableRetention.resolvedFindings(o.get(OrchestratorSettings.FINDING_RETENTION))));
        TableRetention retention = new TableRetention(node.jdbi, node.clock, rules);
        Duration retentionPeriod = o.get(OrchestratorSettings.RETENTION_PERIOD);
        components.start(new PeriodicJob("retention", retentionPeriod, retentionPeriod, retention::run, jobs));
    }

    private void startReconciler(Wiring w) {
        Settings s = w.s();
        SettingsTable.Values o = w.o();
        JobListener jobs = w.jobs();
        PaymentReconciler reconciler = new PaymentReconciler(new OrderStore(node.jdbi), node.engine,
                node.paymentClient(), o.get(OrchestratorSettings.PAYMENT_RESEND_AFTER),
                o.get(OrchestratorSettings.PAYMENT_MAX_RESENDS));
        Duration reconcilePeriod = o.get(OrchestratorSettings.RECONCILE_PERIOD);
        components.start(new PeriodicJob(PaymentReconciler.CONSUMER, reconcilePeriod, reconcilePeriod,
                reconciler::pass, jobs));
        ReconcilerRole.start(node, ReconcilerSettings.from(s), components, jobs);
    }

    private void startApi(Wiring w) {
        Settings s = w.s();
        SettingsTable.Values o = w.o();
        ForegroundFirst foreground = w.foreground();
        OrderService orders = new OrderService(node.engine,
                new IdempotencyStore(node.jdbi, o.get(OrchestratorSettings.IDEMPOTENCY_RETENTION)),
                new OrderStore(node.jdbi), node.clock, o.get(OrchestratorSettings.ANSWER_RESERVE), node.tracing, node.registry);
        ApiProtection protection = ApiProtection.from(s);
        OrderStore store = new OrderStore(node.jdbi);
        // A client's share is counted only while some order is parked (accepted while inventory was
        // unavailable): healthy load makes no count per submission (ADR 0019).
        ApiServer.Admission admission = foreground.around(o.get(OrchestratorSettings.SHEDDING)
                ? new AdmissionControl(shedder(o, node), node.gauges::pending,
                        o.get(OrchestratorSettings.PENDING_CAP), node.gauges::parked, store::pendingOf, protection.clientPendingCap(),
                        node.clock, o.get(OrchestratorSettings.ADMISSION_QUEUE), node.registry,
                        (deadline, congested, priority, refusal) -> node.inventory.holdPlace(
                                Deadline.ofEpochMillis(deadline - o.get(OrchestratorSettings.ANSWER_RESERVE)), congested, priority,
                                r -> refusal.accept("inventory " + r)))
                : ApiServer.Admission.ALWAYS);
        warmUp = new WarmUp(new WarmUp.Target(node.dataSource, node.clock, node.engine.timings(),
                o.get(OrchestratorSettings.PAYMENT_STEP_TIMEOUT), o.get(OrchestratorSettings.ANSWER_RESERVE), o.get(OrchestratorSettings.REQUEST_BUDGET),
                o.get(OrchestratorSettings.IDEMPOTENCY_RETENTION), node.inventory.config(),
                URI.create(s.inventoryUrl())), s.warmUpOrders(), s.warmUpMax(),
                Math.max(1, Math.min(4, s.dbPoolSize() - 2)), node.registry);
        api = ApiServer.start(s.host(), s.apiPort(), orders, store, warmUp.readiness(node::readiness),
                node.registry, admission, node.clock, new RequestBudget(o.get(OrchestratorSettings.REQUEST_BUDGET),
                        Math.max(o.get(OrchestratorSettings.REQUEST_BUDGET), o.get(OrchestratorSettings.MAX_BUDGET))), this::componentRoutes,
                protection.limits(), access, protection.quotas());
        components.start(Component.of("api", api));
        // Orders through Kafka take the API's path: validation, keys, admission, the saga (docs/events.md).
        OrderCommands commands = new OrderCommands(orders, admission, node.clock, o.get(OrchestratorSettings.REQUEST_BUDGET));
        components.start(Component.of("order-commands", new OrderCommandConsumer(commands, node.jdbi,
                node.relayWakeUp(), new OrderCommandConsumer.Config(s.kafka(), s.consumerThreads(),
                        o.get(OrchestratorSettings.CONSUMER_RETRY), node.registry)).start()));
        // Ready only once the order path is warm (ADR 0016); its HTTP server is touched too.
        warmUp.aimedAt(URI.create("http://" + loopbackFor(s.host()) + ":" + api.port()));
        components.start(Component.of("warm-up", warmUp.start()));
        // The operator API: its own listener, never routes on the public port.
        admin = AdminRole.start(node, s, AdminSettings.from(s), adminTokenDir);
        if (admin != null) {
            components.start(Component.of("admin-api", admin));
        }
    }

    /** The priority ceilings, under a limit found at run time unless that is switched off (ADR 0021). */
    private PriorityShedder shedder(SettingsTable.Values o, Node node) {
        AdaptiveLimit adaptive = null;
        if (o.get(OrchestratorSettings.ADMISSION_ADAPTIVE)) {
            SchedulingLag lag = SchedulingLag.start(Duration.ofMillis(10));
            components.start(Component.of("scheduling-lag", lag));
            adaptive = new AdaptiveLimit(AdaptiveLimit.Config.defaults(PriorityShedder.DEFAULT_HIGH_LIMIT),
                    lag::takeAverageNanos);
        }
        return new PriorityShedder(PriorityShedder.DEFAULT_HIGH_LIMIT, PriorityShedder.DEFAULT_NORMAL_LIMIT,
                PriorityShedder.DEFAULT_LOW_LIMIT, adaptive, node.resilienceMetrics);
    }

    /**
     * {@code GET /health/components}: each background component's state, failures and the kind of its
     * last failure ({@code FailureCause}): anonymous callers see no exception text, the log has it.
     * Not part of readiness: a failing reconciler is no reason to take the API out of rotation.
     */
    private void componentRoutes(io.javalin.config.RoutesConfig routes) {
        routes.get("/health/components", ctx -> ctx.contentType("application/json")
                .result(org.sagas.orchestrator.Json.write(components.health())));
    }

    /** Where ./sagas up keeps a generated admin token: the data directory, else a scratch one. */
    private java.nio.file.Path adminTokenDir(Settings s) {
        if (started.peek() instanceof EmbeddedStack stack) {
            return stack.dataDir();
        }
        if (s.dataDir() != null) {
            return s.dataDir();
        }
        org.sagas.embedded.ScratchDirectory scratch = org.sagas.embedded.ScratchDirectory.create("sagas-admin-");
        started.push(scratch);
        return scratch.path();
    }

    private void printAdmin(Settings s, PrintStream out) {
        if (admin == null) {
            out.println("  operator API off: set SAGA_ADMIN_TOKEN or SAGA_ADMIN_TOKENS_FILE");
            return;
        }
        AdminSettings a = AdminSettings.from(s);
        String base = "http://" + a.host() + ":" + admin.port();
        out.println("  operator API " + base + "/admin  (./sagas admin --help)" + (a.readOnly() ? ", read-only" : ""));
        out.println("  console      " + base + "/console/");
        if (admin.tokenFile() != null) {
            out.println("  admin token  " + admin.tokenFile() + "  (generated, mode 600; or set SAGA_ADMIN_TOKEN)");
        }
    }

    int adminPort() {
        return admin.port();
    }

    /**
     * The routes each listener of this process registered ({@code public}, {@code admin},
     * {@code inventory}, {@code payment} when it runs them), for the OpenAPI contract test.
     */
    java.util.Map<String, java.util.List<String>> routesByListener() {
        java.util.Map<String, java.util.List<String>> routes = new java.util.LinkedHashMap<>();
        if (api != null) {
            routes.put("public", api.routes());
        }
        if (admin != null) {
            routes.put("admin", admin.routes());
        }
        if (sandbox != null) {
            routes.put("inventory", sandbox.inventoryRoutes());
            routes.put("payment", sandbox.paymentRoutes());
        }
        return routes;
    }

    private static void checkPortsFree(Settings s, boolean all, boolean admin) {
        checkPort(s.apiPort(), "SAGA_HTTP_PORT / --port");
        if (admin) {
            checkPort(AdminSettings.from(s).port(), "SAGA_ADMIN_PORT / --admin-port");
        }
        if (all) {
            checkPort(s.inventoryPort(), "SAGA_INVENTORY_PORT / --inventory-port");
            checkPort(s.paymentPort(), "SAGA_PAYMENT_PORT / --payment-port");
            checkPort(s.fraudPort(), "SAGA_FRAUD_PORT / --fraud-port");
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
