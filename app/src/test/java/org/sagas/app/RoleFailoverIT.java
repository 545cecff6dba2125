package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.app.check.CheckOptions;
import org.sagas.app.check.Checker;
import org.sagas.app.check.Invariant;
import org.sagas.app.check.Report;
import org.sagas.app.check.ReportOutput;
import org.sagas.app.check.Target;
import org.sagas.app.cluster.RoleProcess;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderKeys;

/**
 * Each role's failover under {@code kill -9}, on real processes as {@code ./sagas cluster} runs them
 * (docs/operations.md, "A cluster on one machine"), then a short chaos run on the same cluster
 * ("Breaking it on purpose"). One cluster for the class — two processes of each role, one broker
 * (three brokers cost a minute more to start and add nothing to a role's failover; ClusterAccessIT
 * and chaos runs cover the brokers) — under one load of orders through the front, and one kill per
 * role, each asserting what that role's failover must keep: the relay's events neither lost nor
 * reordered, one charge per order under its key, each reconciliation finding and repair once, an
 * operator batch acting on each saga once, one order per Idempotency-Key. The checker's invariants
 * judge each kill's orders; the chaos run ends with all of them on everything.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RoleFailoverIT {
    /**
     * Short waits, so that a failover shows within seconds: findings about orders nobody placed, and
     * steps whose runner died. The grace for known orders stays at its 30 s: shorter, it finds a
     * confirmed order "not charged" whenever the ledger feed lags behind the events under chaos,
     * and the check may catch such a finding before the feed resolves it.
     */
    private static final Map<String, String> FAST = Map.ofEntries(
            Map.entry("SAGA_RECONCILER_UNKNOWN_ORDER_GRACE_MS", "3000"),
            Map.entry("SAGA_RECONCILER_PULL_INTERVAL_MS", "200"),
            Map.entry("SAGA_STEP_LEASE_MS", "5000"),
            TestProduct.FEW_WARM_UP_ORDERS,
            // The build before orders saga version 2, until the rolling deploy (Order 6) brings it
            Map.entry("SAGA_ORDER_SAGA_HIGHEST_VERSION", "1"));
    private static final Duration SETTLE = Duration.ofSeconds(90);
    private static final long CHAOS_SEED = 11;
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private static Cluster cluster;
    private static Jdbi db;
    private static Load load;
    private static long classStarted;

    @BeforeAll
    static void startClusterAndLoad() {
        classStarted = System.nanoTime();
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        cluster = Cluster.start(Settings.from(Map.<String, String>of()::get, Map.of()), new Cluster.Shape(2, 1, 0),
                new PrintStream(printed, true, StandardCharsets.UTF_8), FAST);
        System.out.printf("RoleFailoverIT: cluster of %d processes up in %.1f s%n", cluster.processes().size(),
                seconds(classStarted));
        Settings s = cluster.infrastructure();
        db = Jdbi.create(s.dbUrl(), s.dbUser(), s.dbPassword());
        for (int i = 0; i < Load.SKUS; i++) {
            put(cluster.inventoryUrl() + "/stock/FAILOVER-" + i, "{\"available\":100000}");
        }
        load = new Load(cluster.apiUrl(), 4);
    }

    @AfterAll
    static void stop() {
        if (load != null) {
            load.close();
        }
        if (cluster != null) {
            keepLogs(cluster.dataDir().resolve("logs"), Path.of("target", "role-failover-logs"));
            cluster.close();
        }
        System.out.printf("RoleFailoverIT: %.1f s in all%n", seconds(classStarted));
    }

    /** Whatever a test left broken is mended, so that the next one starts from a healthy cluster. */
    @AfterEach
    void heal() {
        put(cluster.inventoryUrl() + "/_faults", "{\"latencyMs\":0,\"down\":false}");
        put(cluster.paymentUrl() + "/_faults", "{\"latencyMs\":0}");
        List<RoleProcess> down = cluster.processes().stream().filter(p -> !p.isAlive()).toList();
        down.forEach(RoleProcess::start);
        cluster.awaitReady(down);
    }

    @Test
    @Order(1)
    void shouldPublishEveryEventOfEveryOrderInOrderWhenARelayIsKilledWhilePublishing() {
        long from = System.nanoTime();
        RoleProcess relay = process("relay-1");
        RoleProcess other = process("relay-2");
        // Given relay-1 publishing its shards of the outbox under the load
        await("relay-1 publishing").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> metric(relay, "outbox_leased_shards") > 0 && metric(relay, "outbox_published_total") > 0);
        double published = metric(other, "outbox_published_total");

        // When it is killed
        relay.kill();

        // Then the other relay takes its shards over and goes on publishing
        await("relay-2 taking over").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> metric(other, "outbox_published_total") > published + 20);
        relay.start();
        Set<UUID> orders = load.acceptedSince(from);
        assertThat(orders).hasSizeGreaterThan(5);
        check(orders, Invariant.NOT_TERMINAL, Invariant.EVENTS_OUT_OF_ORDER, Invariant.OUTBOX_STUCK);
        // An order final in the database may still have its last event in the outbox, on a shard that
        // changes hands while relay-1 comes back; the relay deletes a row only once it is on the topic
        String[] ids = orders.stream().map(UUID::toString).toArray(String[]::new);
        await("these orders' outbox rows published").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(250)).until(() -> db.withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM outbox WHERE aggregate_id = ANY(:ids)").bind("ids", ids)
                        .mapTo(Integer.class).one()) == 0);

        // And no order's event is missing on orders.events, nor its charge command on payments.commands
        Map<String, List<ClusterTopics.Record>> events = byKey(ClusterTopics.read(cluster.infrastructure().kafka(),
                Topics.ORDERS_EVENTS));
        Map<String, List<ClusterTopics.Record>> commands = byKey(ClusterTopics.read(cluster.infrastructure().kafka(),
                Topics.PAYMENTS_COMMANDS));
        for (UUID order : orders) {
            List<String> labels = db.withHandle(h -> h.createQuery("SELECT label FROM saga_history"
                    + " WHERE saga_id = :id ORDER BY id").bind("id", order).mapTo(String.class).list());
            List<ClusterTopics.Record> published_ = events.getOrDefault(order.toString(), List.of()).stream()
                    .filter(r -> r.type().equals("OrderStatusChanged")).toList();
            Set<String> statuses = published_.stream().map(r -> TestProduct.read(r.value()).path("status").asText())
                    .collect(Collectors.toSet());
            // The first row is the order's start, while its reservation runs: no event of its own
            // (docs/events.md); each status after it was published.
            assertThat(statuses).as("statuses published for %s, history %s", order, labels)
                    .containsAll(labels.subList(1, labels.size()).stream().filter(STATUSES::contains)
                            .collect(Collectors.toSet()));
            assertThat(TestProduct.read(published_.get(published_.size() - 1).value()).path("status").asText())
                    .as("last event of %s", order).isEqualTo(labels.get(labels.size() - 1));
            if (labels.contains("AWAITING_PAYMENT")) {
                List<String> types = commands.getOrDefault(order.toString(), List.of()).stream()
                        .map(ClusterTopics.Record::type).toList();
                assertThat(types).as("payment commands of %s", order).isNotEmpty();
                assertThat(types.get(0)).as("first payment command of %s", order).isEqualTo("ChargePayment");
            }
        }
        awaitReady(relay);
    }

    @Test
    @Order(2)
    void shouldChargeEachOrderOnceUnderItsKeyWhenAPaymentWorkerIsKilledMidCharge() {
        long from = System.nanoTime();
        RoleProcess worker = process("payment-worker-1");
        // Given a provider answering in 1.5 s, so that the workers have charges under way: orders
        // waiting for their payment longer than the relay takes to publish the command
        put(cluster.paymentUrl() + "/_faults", "{\"latencyMs\":1500}");
        await("charges under way").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> db.withHandle(h -> h.createQuery("SELECT count(*) FROM orders WHERE status ="
                        + " 'AWAITING_PAYMENT' AND updated_at < now() - interval '500 milliseconds'")
                        .mapTo(Integer.class).one()) >= 3);

        // When payment-worker-1 is killed while charging, and comes back
        worker.kill();
        worker.start();
        put(cluster.paymentUrl() + "/_faults", "{\"latencyMs\":0}");
        awaitReady(worker);
        Set<UUID> orders = load.acceptedSince(from);

        // Then each order is charged at most once, a confirmed one once, a cancelled one not at all
        check(orders, Invariant.NOT_TERMINAL, Invariant.CHARGED_TWICE, Invariant.CONFIRMED_WITHOUT_CAPTURE,
                Invariant.CAPTURE_NOT_REFUNDED);
        // And every charge in the provider's ledger is under its order's charge key
        List<Map<String, Object>> charges = db.withHandle(h -> h.createQuery("SELECT order_id, idempotency_key"
                + " FROM sandbox.charge WHERE order_id = ANY(:ids)").bind("ids", orders.stream()
                .map(UUID::toString).toArray(String[]::new)).mapToMap().list());
        assertThat(charges).isNotEmpty();
        for (Map<String, Object> charge : charges) {
            assertThat(charge.get("idempotency_key")).isEqualTo(OrderKeys.charge(UUID.fromString(
                    (String) charge.get("order_id"))));
        }
    }

    @Test
    @Order(3)
    void shouldFindAndRepairEachDiscrepancyOnceWhenAReconcilerIsKilledMidWork() {
        RoleProcess reconciler = process("reconciler-1");
        double pulled = metric(process("reconciler-1"), "saga_reconciler_ledger_entries_total")
                + metric(process("reconciler-2"), "saga_reconciler_ledger_entries_total");
        // Given six charges nobody asked for, for orders nobody placed, pulled into the reconciler
        Map<String, String> keys = new LinkedHashMap<>();
        for (int i = 0; i < 6; i++) {
            String order = UUID.randomUUID().toString();
            keys.put(order, "direct-" + order);
            HttpResponse<String> charged = post(URI.create(cluster.paymentUrl() + "/charges"), "{\"orderId\":\""
                    + order + "\",\"amountCents\":4200,\"currency\":\"EUR\"}", "direct-" + order);
            assertThat(charged.statusCode()).as(charged.body()).isEqualTo(200);
        }
        await("the charges pulled").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(() -> metric(process("reconciler-1"), "saga_reconciler_ledger_entries_total")
                        + metric(process("reconciler-2"), "saga_reconciler_ledger_entries_total") >= pulled + 6);

        // When reconciler-1 is killed while they are still in their grace period, and comes back
        reconciler.kill();
        reconciler.start();

        // Then each is found once, and refunded once: one finding, one repair command, one refund
        Set<String> orders = keys.keySet();
        await("every finding resolved").atMost(SETTLE).pollInterval(Duration.ofMillis(500)).until(() ->
                db.withHandle(h -> h.createQuery("SELECT count(*) FROM reconciliation_finding WHERE order_id = ANY(:o)"
                        + " AND state = 'RESOLVED'").bind("o", orders.toArray(String[]::new)).mapTo(Integer.class)
                        .one()) >= orders.size());
        Map<String, List<ClusterTopics.Record>> repairs = byKey(ClusterTopics.read(cluster.infrastructure().kafka(),
                Topics.RECONCILIATION_REPAIRS));
        keys.forEach((order, key) -> {
            List<String> findings = db.withHandle(h -> h.createQuery("SELECT kind || ' ' || state || ' ' || action"
                    + " FROM reconciliation_finding WHERE order_id = :o").bind("o", order).mapTo(String.class).list());
            assertThat(findings).as("findings of " + order).containsExactly("CHARGED_NOT_CONFIRMED RESOLVED REFUND");
            assertThat(repairs.getOrDefault(order, List.of())).as("repair commands of " + order)
                    .extracting(ClusterTopics.Record::type).containsExactly("RefundCharge");
            int refunds = db.withHandle(h -> h.createQuery("SELECT count(*) FROM sandbox.refund_request"
                    + " WHERE charge_key = :k").bind("k", key).mapTo(Integer.class).one());
            assertThat(refunds).as("refunds of " + key).isEqualTo(1);
        });
        // And the restarted instance restored its state stores and is ready again
        awaitReady(reconciler);
    }

    @Test
    @Order(4)
    void shouldResumeAnOperatorBatchOnAnotherProcessAndActOnEachSagaOnceWhenItsProcessIsKilled() {
        // Given ten orders of one customer parked while inventory is down
        String customer = "batch-" + UUID.randomUUID().toString().substring(0, 8);
        put(cluster.inventoryUrl() + "/_faults", "{\"down\":true}");
        List<UUID> parked = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            Load.Answer a = Load.place(cluster.apiUrl(), customer + "-" + i, customer, "FAILOVER-0", 1);
            assertThat(a.status()).as(a.body()).isEqualTo(202);
            parked.add(a.orderId());
        }
        // ... and a batch cancelling them, two a second
        HttpResponse<String> started = admin(cluster.adminPort("api-1"), "POST", "/admin/batches",
                "{\"action\":\"cancel\",\"filter\":{\"status\":[\"PENDING_CONFIRMATION\"],\"customerId\":\"" + customer
                        + "\"},\"maxRatePerSecond\":2,\"reason\":\"failover test\"}");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        String batch = TestProduct.read(started.body()).path("batchId").asText();
        await("the batch under way").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                .until(() -> batchView(cluster.adminPort("api-1"), batch).path("processed").asInt() >= 2);

        // When the process running it is killed
        RoleProcess runner = cluster.processes().stream().filter(p -> p.role().equals("api"))
                .filter(p -> logOf(p).contains("batch " + batch + " (")).findFirst().orElseThrow();
        RoleProcess survivor = cluster.processes().stream().filter(p -> p.role().equals("api") && p != runner)
                .findFirst().orElseThrow();
        runner.kill();

        // Then the other takes it over once its lease ran out, and completes it
        int survivorAdmin = cluster.adminPort(survivor.name());
        await("the batch completed").atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500))
                .until(() -> batchView(survivorAdmin, batch).path("state").asText().equals("COMPLETED"));
        runner.start();
        put(cluster.inventoryUrl() + "/_faults", "{\"down\":false}");
        JsonNode done = batchView(survivorAdmin, batch);
        assertThat(logOf(survivor)).contains("batch " + batch + " (");
        // And it acted on each saga once: ten applied, nothing refused as already done, one cancel each
        assertThat(done.path("applied").asInt()).as(done.toString()).isEqualTo(parked.size());
        assertThat(done.path("refused").asInt() + done.path("conflicts").asInt() + done.path("failed").asInt())
                .as(done.toString()).isZero();
        check(Set.copyOf(parked), Invariant.NOT_TERMINAL, Invariant.RESERVED_NOT_LIVE,
                Invariant.CAPTURE_NOT_REFUNDED);
        for (UUID order : parked) {
            int cancels = db.withHandle(h -> h.createQuery("SELECT count(*) FROM (SELECT label, lag(label)"
                    + " OVER (ORDER BY id) AS before FROM saga_history WHERE saga_id = :id) t"
                    + " WHERE label = 'CANCELLED' AND before IS DISTINCT FROM 'CANCELLED'").bind("id", order)
                    .mapTo(Integer.class).one());
            assertThat(cancels).as("transitions of %s to CANCELLED", order).isEqualTo(1);
        }
        awaitReady(runner);
    }

    @Test
    @Order(5)
    void shouldAnswerOrSafelyRetryEachInFlightRequestWithOneOrderPerKeyWhenAnApiIsKilled() throws Exception {
        // Given orders arriving at api-1 one every 50 ms, each in flight for a while: inventory
        // answers in 1 s, so each waits for its reservation's timeout and is parked
        RoleProcess api = process("api-1");
        int other = process("api-2").httpPort();
        String prefix = "inflight-" + UUID.randomUUID().toString().substring(0, 8);
        put(cluster.inventoryUrl() + "/_faults", "{\"latencyMs\":1000}");
        ExecutorService clients = Executors.newFixedThreadPool(16);
        Map<String, CompletableFuture<Load.Answer>> inFlight = new LinkedHashMap<>();
        for (int i = 0; i < 16; i++) {
            String key = prefix + "-" + i;
            long at = i * 50L;
            inFlight.put(key, CompletableFuture.supplyAsync(() -> {
                Load.pause(at); // the arrivals' spacing, not a synchronisation
                return Load.tryPlace("http://127.0.0.1:" + api.httpPort(), key, key, "FAILOVER-1", 1);
            }, clients));
        }
        await("orders in flight").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                .until(() -> db.withHandle(h -> h.createQuery("SELECT count(*) FROM orders WHERE customer_id LIKE :p")
                        .bind("p", prefix + "-%").mapTo(Integer.class).one()) >= 4);

        // When api-1 is killed
        api.kill();

        // Then each request was answered, or is answered by api-2 when retried with its key
        Map<String, UUID> answered = new LinkedHashMap<>();
        int retried = 0;
        for (Map.Entry<String, CompletableFuture<Load.Answer>> e : inFlight.entrySet()) {
            Load.Answer a = e.getValue().get(60, TimeUnit.SECONDS);
            // No answer (cut by the kill), or one that says to come back (503: nothing stored; 409:
            // still in progress): the client retries with the same key, now reaching api-2.
            if (a == null || a.status() >= 500 || a.status() == 409) {
                retried++;
                a = Load.place("http://127.0.0.1:" + other, e.getKey(), e.getKey(), "FAILOVER-1", 1);
            }
            assertThat(a.status()).as(e.getKey() + ": " + a.body()).isEqualTo(202);
            answered.put(e.getKey(), a.orderId());
        }
        clients.shutdown();
        put(cluster.inventoryUrl() + "/_faults", "{\"latencyMs\":0}");
        api.start();
        System.out.printf("RoleFailoverIT: %d of %d requests cut by the kill or told to come back, retried on"
                + " api-2%n", retried, inFlight.size());
        assertThat(retried).as("requests retried").isPositive();
        // And there is one order per key, the one its answer names
        answered.forEach((key, order) -> {
            List<UUID> orders = db.withHandle(h -> h.createQuery("SELECT order_id FROM orders WHERE customer_id = :c")
                    .bind("c", key).mapTo(UUID.class).list());
            assertThat(orders).as("orders of " + key).containsExactly(order);
        });
        check(Set.copyOf(answered.values()), Invariant.NOT_TERMINAL, Invariant.CHARGED_TWICE,
                Invariant.CONFIRMED_WITHOUT_CAPTURE, Invariant.CAPTURE_NOT_REFUNDED, Invariant.RESERVED_NOT_LIVE);
        awaitReady(api);
    }

    @Test
    @Order(6)
    void shouldEndEveryOrderOnItsOwnVersionThroughARollingDeployToVersionTwoMidLoad() {
        long from = System.nanoTime();
        // Given the cluster on the build before version 2, under the load, with orders parked on an
        // inventory that is down and charges under way at a provider answering in 1.5 s
        put(cluster.inventoryUrl() + "/_faults", "{\"down\":true}");
        put(cluster.paymentUrl() + "/_faults", "{\"latencyMs\":1500}");
        await("orders parked on version 1").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> db.withHandle(h -> h.createQuery("SELECT count(*) FROM saga_instance WHERE status ="
                        + " 'PARKED' AND definition_version = 1").mapTo(Integer.class).one()) >= 3);

        // When the processes that run the saga are replaced one at a time by the new build, which
        // starts new orders on version 2: an api first, so that version 2 orders exist while a saga
        // worker and an api of the old build still run; inventory comes back halfway
        Map<String, String> newBuild = Map.of("SAGA_ORDER_SAGA_HIGHEST_VERSION", "2", "SAGA_ORDER_SAGA_VERSION", "2");
        List<String> rollout = List.of("api-1", "saga-worker-1", "reconciler-1", "saga-worker-2", "reconciler-2",
                "api-2");
        long rolling = System.nanoTime();
        for (String name : rollout) {
            long step = System.nanoTime();
            RoleProcess p = process(name).redeploy(newBuild);
            awaitReady(p);
            System.out.printf("RoleFailoverIT: %s redeployed and ready in %.1f s%n", name, seconds(step));
            if (name.equals("reconciler-1")) {
                put(cluster.inventoryUrl() + "/_faults", "{\"down\":false}");
            }
        }
        put(cluster.paymentUrl() + "/_faults", "{\"latencyMs\":0}");
        Set<UUID> orders = load.acceptedSince(from);
        long checking = System.nanoTime();
        System.out.printf("RoleFailoverIT: parked on version 1 in %.1f s, rolled out in %.1f s%n",
                (rolling - from) / 1e9, seconds(rolling));

        // Then every order ended, none charged twice, stock adds up, no reservation left behind, and no
        // incident: no process took an instance of a version it does not have
        check(orders, Invariant.NOT_TERMINAL, Invariant.CHARGED_TWICE, Invariant.CONFIRMED_WITHOUT_CAPTURE,
                Invariant.CAPTURE_NOT_REFUNDED, Invariant.STOCK_MISMATCH, Invariant.RESERVED_NOT_LIVE,
                Invariant.OPEN_INCIDENTS);
        System.out.printf("RoleFailoverIT: %d orders of the deploy ended and checked in %.1f s%n", orders.size(),
                seconds(checking));
        // And each ran its own version to its end: a version 1 order never screened, even one parked
        // before the deploy and resumed by the new build; every version 2 order screened before its charge
        Map<UUID, Integer> versions = new LinkedHashMap<>();
        db.useHandle(h -> h.createQuery("SELECT saga_id, definition_version FROM saga_instance WHERE saga_id = ANY(:ids)")
                .bind("ids", orders.toArray(UUID[]::new))
                .map((rs, ctx) -> Map.entry(rs.getObject(1, UUID.class), rs.getInt(2)))
                .forEach(e -> versions.put(e.getKey(), e.getValue())));
        assertThat(versions.values()).contains(1, 2);
        int resumedOnV1 = 0;
        for (Map.Entry<UUID, Integer> order : versions.entrySet()) {
            List<String> steps = db.withHandle(h -> h.createQuery("SELECT step FROM saga_history WHERE saga_id = :id"
                    + " ORDER BY id").bind("id", order.getKey()).mapTo(String.class).list());
            if (order.getValue() == 1) {
                assertThat(steps).as("steps of version 1 order %s", order.getKey()).doesNotContain("SCREEN_FRAUD");
                resumedOnV1 += steps.stream().filter("RESERVE_STOCK"::equals).count() > 1 ? 1 : 0;
            } else if (steps.contains("CHARGE_PAYMENT")) {
                assertThat(steps).as("steps of version 2 order %s", order.getKey())
                        .containsSubsequence("RESERVE_STOCK", "SCREEN_FRAUD", "CHARGE_PAYMENT");
            }
        }
        assertThat(resumedOnV1).as("version 1 orders parked before the deploy and resumed after it").isPositive();
    }

    @Test
    @Order(7)
    void shouldHoldEveryInvariantAfterAMinuteOfChaosOnTheSameCluster() {
        // Given the failovers' load done and every process back
        load.close();
        cluster.awaitReady(cluster.processes());
        long started = System.nanoTime();

        // When chaos runs a minute of faults drawn from a fixed seed
        Path results = Path.of("target", "chaos-results", "role-failover-" + CHAOS_SEED + ".json");
        Report report = Chaos.on(cluster, CHAOS_SEED, Duration.ofSeconds(60), 4, 1, results, System.out);
        System.out.printf("RoleFailoverIT: chaos seed %d, %.1f s with its check, results in %s%n", CHAOS_SEED,
                seconds(started), results.toAbsolutePath());

        // Then every invariant of the checker holds, on every order of the class, open
        // reconciliation findings included
        List<Invariant> failed = report.failed();
        String findings = db.withHandle(h -> h.createQuery("SELECT kind || ' ' || state || ': ' || count(*)"
                + " FROM reconciliation_finding GROUP BY kind, state ORDER BY 1").mapTo(String.class).list()).toString();
        System.out.println("RoleFailoverIT: findings after the chaos minute: " + findings);
        assertThat(failed).as(table(report) + "findings: " + findings).isEmpty();
        assertThat(TestProduct.read(readString(results)).path("orders_accepted").asInt()).isGreaterThan(100);
    }

    // ---- helpers ----------------------------------------------------------------------------------

    private static final Set<String> STATUSES = Set.of("PENDING_CONFIRMATION", "AWAITING_PAYMENT",
            "PAYMENT_UNKNOWN", "COMPENSATING", "CONFIRMED", "CANCELLED", "REJECTED");

    /** The checker's {@code invariants} on {@code orders}, waiting up to the settle time for them to end. */
    private static void check(Set<UUID> orders, Invariant... invariants) {
        Settings s = cluster.infrastructure();
        Target target = new Target(s.dbUrl(), s.dbUser(), s.dbPassword(), s.kafka(), URI.create(cluster.inventoryUrl()),
                URI.create(cluster.paymentUrl()), cluster.ledgerToken());
        Report report = Checker.run(target, CheckOptions.defaults().withSettle(SETTLE).withOrders(orders).withMaxIds(20)
                .only(EnumSet.copyOf(List.of(invariants))));
        assertThat(report.failed()).as(table(report)).isEmpty();
    }

    private static String table(Report report) {
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        ReportOutput.table(report, new PrintStream(table, true, StandardCharsets.UTF_8));
        return table.toString(StandardCharsets.UTF_8);
    }

    private static Map<String, List<ClusterTopics.Record>> byKey(List<ClusterTopics.Record> records) {
        Map<String, List<ClusterTopics.Record>> byKey = new LinkedHashMap<>();
        records.stream().filter(r -> r.key() != null)
                .sorted(java.util.Comparator.comparingInt(ClusterTopics.Record::partition)
                        .thenComparingLong(ClusterTopics.Record::offset))
                .forEach(r -> byKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r));
        return byKey;
    }

    private static RoleProcess process(String name) {
        return cluster.processes().stream().filter(p -> p.name().equals(name)).findFirst().orElseThrow();
    }

    private static void awaitReady(RoleProcess p) {
        cluster.awaitReady(List.of(p));
    }

    /** The sum of a metric's samples (every label set) on a process's {@code /metrics}, 0 if absent. */
    private static double metric(RoleProcess p, String name) {
        try {
            String text = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + p.httpPort() + "/metrics"))
                    .timeout(Duration.ofSeconds(5)).GET().build(), HttpResponse.BodyHandlers.ofString()).body();
            return text.lines().filter(l -> l.startsWith(name + " ") || l.startsWith(name + "{"))
                    .mapToDouble(l -> Double.parseDouble(l.substring(l.lastIndexOf(' ') + 1))).sum();
        } catch (IOException e) {
            return 0; // not listening (yet)
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private static String logOf(RoleProcess p) {
        return readString(p.log());
    }

    private static String readString(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static JsonNode batchView(int adminPort, String batch) {
        HttpResponse<String> r = admin(adminPort, "GET", "/admin/batches/" + batch, null);
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return TestProduct.read(r.body());
    }

    private static HttpResponse<String> admin(int port, String method, String path, String json) {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(30)).header("Authorization", "Bearer " + cluster.adminToken())
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json));
        if (json != null) {
            b.header("Content-Type", "application/json");
        }
        return send(b.build());
    }

    private static HttpResponse<String> post(URI uri, String json, String idempotencyKey) {
        return send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey).POST(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private static void put(String url, String json) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build());
        assertThat(r.statusCode()).as(url + ": " + r.body()).isLessThan(300);
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(request.uri() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** The processes' logs, kept under target/ after the cluster's scratch directory is gone. */
    private static void keepLogs(Path logs, Path to) {
        try {
            Files.createDirectories(to);
            try (var files = Files.list(logs)) {
                for (Path f : files.toList()) {
                    Files.copy(f, to.resolve(f.getFileName()), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
                }
            }
        } catch (IOException e) {
            System.out.println("RoleFailoverIT: could not keep the logs: " + e);
        }
    }

    private static double seconds(long since) {
        return (System.nanoTime() - since) / 1e9;
    }

    /**
     * Orders through the front at a steady rate, each retried with its Idempotency-Key on no answer,
     * a 5xx or a 409 (still in progress), as a client would; remembers when each accepted one was sent.
     */
    static final class Load implements AutoCloseable {
        static final int SKUS = 10;
        private static final int ATTEMPTS = 10;
        private final String front;
        private final ScheduledExecutorService ticker = Executors.newSingleThreadScheduledExecutor();
        private final ExecutorService clients = Executors.newFixedThreadPool(16);
        private final Map<UUID, Long> accepted = new ConcurrentHashMap<>();
        private final AtomicInteger sent = new AtomicInteger();

        /** An answer: its status, body and the order it names (null if none). */
        record Answer(int status, String body, UUID orderId) {}

        Load(String front, int perSecond) {
            this.front = front;
            ticker.scheduleAtFixedRate(() -> clients.execute(this::one), 0, 1_000 / perSecond, TimeUnit.MILLISECONDS);
        }

        private void one() {
            int n = sent.incrementAndGet();
            long at = System.nanoTime();
            Answer a = place(front, "failover-load-" + n, "failover-c-" + (n % 200), "FAILOVER-" + (n % SKUS), 1);
            if (a.orderId() != null) {
                accepted.put(a.orderId(), at);
            }
        }

        /** The orders accepted that were first sent at or after {@code since} ({@link System#nanoTime()}). */
        Set<UUID> acceptedSince(long since) {
            Set<UUID> orders = new HashSet<>();
            accepted.forEach((order, at) -> {
                if (at >= since) {
                    orders.add(order);
                }
            });
            return orders;
        }

        /** One order, retried with its key until a final answer. */
        static Answer place(String base, String key, String customer, String sku, int quantity) {
            Answer last = null;
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                Answer a = tryPlace(base, key, customer, sku, quantity);
                if (a != null && a.status() < 500 && a.status() != 409) {
                    return a;
                }
                last = a;
                pause(Math.min(4_000, 250L << attempt)); // a client's back-off, not a synchronisation
            }
            return last != null ? last : new Answer(0, "no answer", null);
        }

        /** One attempt; null if no answer came (the connection failed or was cut). */
        static Answer tryPlace(String base, String key, String customer, String sku, int quantity) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(base + "/orders"))
                        .timeout(Duration.ofSeconds(15)).header("Content-Type", "application/json")
                        .header("Idempotency-Key", key).POST(HttpRequest.BodyPublishers.ofString(
                                TestProduct.order(customer, sku, quantity, 1_000))).build(),
                        HttpResponse.BodyHandlers.ofString());
                JsonNode body = r.body().isBlank() ? null : TestProduct.read(r.body());
                UUID order = body != null && body.hasNonNull("orderId") && r.statusCode() == 202
                        ? UUID.fromString(body.get("orderId").asText()) : null;
                return new Answer(r.statusCode(), r.body(), order);
            } catch (IOException e) {
                return null;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return null;
            }
        }

        static void pause(long millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            ticker.shutdownNow();
            clients.shutdown();
            try {
                clients.awaitTermination(60, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
