package org.sagas.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.sagas.app.Settings;
import org.sagas.orchestrator.Json;
import org.sagas.testkit.ThreadCpu;

/**
 * {@code ./sagas bench cascade}: the resilience lesson's cascade on the real product. 100 orders/s
 * for 12 s; inventory answers in 40 ms, then in 4 s from second 3 until second 12 (recovery).
 * Run once per protection level, each on a freshly started product (a process of its own, cold
 * unless {@code --warm-up}; the participants and the client in processes of their own, see
 * {@link BenchRig}) over the same PostgreSQL and Kafka, and tabulated: what the clients saw, how
 * long after recovery until every accepted order was terminal, and the invariants (lost orders,
 * double charges). With {@code --via kafka} the same orders are {@code PlaceOrder} commands sent
 * through {@link KafkaOrders} (docs/benchmarks.md).
 */
final class CascadeBenchmark {
    static final int RATE = 100;
    static final Duration LOAD = Duration.ofSeconds(12);
    static final Duration SLOW_FROM = Duration.ofSeconds(3);
    static final Duration DRAIN_LIMIT = Duration.ofSeconds(120);
    static final int SKUS = 100;
    static final int WARM_UP_ORDERS = 2000;
    static final int WARM_UP_RATE = 60;

    /** A protection level: a name and the settings that make it. */
    record Config(String name, Map<String, String> env) {}

    static List<Config> configs() {
        return List.of(
                new Config("no-protection", Map.of("SAGA_INVENTORY_TIMEOUT_MS", "60000", "SAGA_REQUEST_BUDGET_MS",
                        "60000", "SAGA_INVENTORY_LAYERS", "none", "SAGA_DEGRADED_MODE", "false", "SAGA_SHEDDING", "false")),
                new Config("timeout", Map.of("SAGA_INVENTORY_LAYERS", "none", "SAGA_DEGRADED_MODE", "false",
                        "SAGA_SHEDDING", "false")),
                new Config("timeout+breaker", Map.of("SAGA_INVENTORY_LAYERS", "breaker", "SAGA_DEGRADED_MODE", "false",
                        "SAGA_SHEDDING", "false")),
                new Config("timeout+breaker+bulkhead", Map.of("SAGA_INVENTORY_LAYERS", "breaker,bulkhead",
                        "SAGA_DEGRADED_MODE", "false", "SAGA_SHEDDING", "false")),
                new Config("full-degraded-mode", Map.of()));
    }

    private final PrintStream out;
    private final boolean warmUp;
    private final Benchmarks.Via via;

    /**
     * @param warmUp whether each run starts after {@link #WARM_UP_ORDERS} orders (default: cold)
     * @param via how the orders are sent: {@code POST /orders}, or {@code PlaceOrder} commands through
     *     {@link KafkaOrders}, where a latency is a command's time to its outcome on {@code orders.events}
     */
    CascadeBenchmark(PrintStream out, boolean warmUp, Benchmarks.Via via) {
        this.out = out;
        this.warmUp = warmUp;
        this.via = via;
    }

    List<Map<String, Object>> run(Settings settings, Path resultFile, List<String> only) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (BenchRig rig = BenchRig.start(settings, out)) {
            for (Config config : configs()) {
                if (!only.isEmpty() && !only.contains(config.name())) {
                    continue;
                }
                rows.add(scenario(config, rig));
                rig.stopProduct();
            }
        }
        table(rows);
        Files.createDirectories(resultFile.getParent());
        Files.writeString(resultFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(rows));
        out.println("written to " + resultFile);
        return rows;
    }

    private Map<String, Object> scenario(Config config, BenchRig rig) throws Exception {
        out.printf("%n== %s ==%n", config.name());
        rig.put(rig.inventoryUrl() + "/_faults", "{\"latencyMs\":40,\"errorRate\":0.0,\"down\":false}");
        double toReady = rig.startProduct(config.env());
        out.printf("  product ready after %.1f s (a process of its own, cold)%n", toReady);
        {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                    .executor(Executors.newFixedThreadPool(16)).build();
            URI api = rig.ordersUri();
            String customer = "cascade-" + config.name() + "-" + UUID.randomUUID().toString().substring(0, 8);
            // A catalogue, as in the lesson's shop, not one hot stock row that every order queues on.
            String run = UUID.randomUUID().toString().substring(0, 8);
            List<String> skus = new ArrayList<>();
            for (int i = 0; i < SKUS; i++) {
                skus.add("CASCADE-" + run + "-" + i);
                rig.put(rig.inventoryUrl() + "/stock/" + skus.get(i), "{\"available\":1000000}");
            }
            if (warmUp && via == Benchmarks.Via.KAFKA) {
                warmUp(rig, skus);
            } else if (warmUp) {
                warmUp(http, api, skus, rig.monitor());
            }
            int total = (int) (RATE * LOAD.toSeconds());
            ThreadCpu threads = new ThreadCpu();
            Map<String, Duration> threadsBefore = threads.read(rig.productPid());
            if (via == Benchmarks.Via.KAFKA) {
                return reported(viaKafka(config, rig, http, customer, skus, total, toReady), threads, threadsBefore,
                        rig.productPid());
            }
            Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
            Map<String, AtomicInteger> failedBy = new ConcurrentHashMap<>();
            Set<UUID> accepted = ConcurrentHashMap.newKeySet();
            Latencies latencies = new Latencies();
            List<CompletableFuture<Void>> inFlight = new ArrayList<>();
            long start = System.nanoTime();
            Slowdown slowdown = new Slowdown(rig, start);
            for (int i = 0; i < total; i++) {
                long due = start + i * 1_000_000_000L / RATE;
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    TimeUnit.NANOSECONDS.sleep(wait);
                }
                slowdown.ifDue();
                long t0 = System.nanoTime();
                HttpRequest request = HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(70))
                        .header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString())
                        .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"" + customer
                                + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + skus.get(i % SKUS)
                                + "\",\"quantity\":1,\"unitPriceCents\":500}]}")).build();
                inFlight.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((r, e) -> {
                    latencies.add((System.nanoTime() - t0) / 1000);
                    String outcome = classify(r, e, accepted);
                    outcomes.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
                    if (outcome.equals("failed")) {
                        failedBy.computeIfAbsent(failure(r, e), k -> new AtomicInteger()).incrementAndGet();
                    }
                    return null;
                }));
                if (i % RATE == RATE - 1) {
                    out.printf("  %2d s  sent %4d  answered %4d%n", (i + 1) / RATE, i + 1, latencies.count());
                }
            }
            long recovery = recover(rig);
            CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(90, TimeUnit.SECONDS);
            double drain = drain(rig.monitor(), customer, recovery);
            Map<String, Object> row = new LinkedHashMap<>();
            row.put("config", config.name());
            row.put("sent", total);
            row.put("accepted", count(outcomes, "accepted") + count(outcomes, "pending"));
            row.put("pending", count(outcomes, "pending"));
            row.put("failed", count(outcomes, "failed"));
            row.put("shed", count(outcomes, "shed"));
            row.put("failed_by", new TreeMap<>(failedBy));
            row.put("p50_ms", Math.round(latencies.percentileMillis(50)));
            row.put("p99_ms", Math.round(latencies.percentileMillis(99)));
            row.put("drain_seconds", drain < 0 ? null : Math.round(drain * 10) / 10.0);
            row.put("lost", lost(rig.productDb(), accepted));
            row.put("double_charges", doubleCharges(http, rig.paymentUrl(), accepted));
            row.put("cold_start", !warmUp);
            row.put("seconds_to_ready", Math.round(toReady * 10) / 10.0);
            return reported(row, threads, threadsBefore, rig.productPid());
        }
    }

    /**
     * Adds the product JVM's CPU by thread group since {@code before}, per accepted order (the
     * recovery and the drain count too, pending orders' resumes included), and prints the row.
     */
    private Map<String, Object> reported(Map<String, Object> row, ThreadCpu threads, Map<String, Duration> before,
            long productPid) {
        row.put(ThreadGroupTable.KEY, ThreadGroupTable.perOrder(ThreadCpu.between(before, threads.read(productPid)),
                ((Number) row.get("accepted")).longValue()));
        out.println("  " + row);
        return row;
    }

    /**
     * The same load as {@code PlaceOrder} commands through {@link KafkaOrders}: a latency is a
     * command's time to its outcome on {@code orders.events}, "refused" an outcome that is not an
     * acceptance, and the row adds the largest lag of the api's {@code order-commands} group.
     */
    private Map<String, Object> viaKafka(Config config, BenchRig rig, HttpClient http, String customer,
            List<String> skus, int total, double toReady) throws Exception {
        double drain;
        Map<String, Object> row = new LinkedHashMap<>();
        Map<UUID, Boolean> accepted;
        try (KafkaOrders kafka = new KafkaOrders(rig.kafka())) {
            Slowdown slowdown = new Slowdown(rig, System.nanoTime());
            kafka.sendAtRate(RATE, total, customer, skus, sent -> {
                try {
                    slowdown.ifDue();
                } catch (Exception e) {
                    throw new IllegalStateException("could not slow the sandbox inventory down", e);
                }
                if (sent % RATE == 0) {
                    out.printf("  %2d s  sent %4d  answered %4d%n", sent / RATE, sent, kafka.latencies().count());
                }
            });
            long recovery = recover(rig);
            if (!kafka.awaitOutcomes(Duration.ofSeconds(90))) {
                out.printf("  %d commands without an outcome 90 s after recovery%n", kafka.unanswered());
            }
            drain = drain(rig.monitor(), customer, recovery);
            Map<String, AtomicInteger> outcomes = kafka.outcomes();
            Map<String, Integer> failedBy = new TreeMap<>();
            failedBy.put("not sent", count(outcomes, "failed"));
            failedBy.put("unreadable outcome", count(outcomes, "unreadable_outcome"));
            failedBy.put("no outcome", kafka.unanswered());
            accepted = kafka.accepted();
            row.put("config", config.name());
            row.put("via", via.label());
            row.put("sent", total);
            row.put("accepted", count(outcomes, "accepted") + count(outcomes, "parked"));
            row.put("pending", count(outcomes, "parked"));
            row.put("refused", count(outcomes, "refused"));
            row.put("failed", failedBy.values().stream().mapToInt(Integer::intValue).sum());
            row.put("failed_by", failedBy);
            row.put("p50_ms", Math.round(kafka.latencies().percentileMillis(50)));
            row.put("p99_ms", Math.round(kafka.latencies().percentileMillis(99)));
            row.put("consumer_lag_max", kafka.maxLag());
            row.put("consumer_lag_samples_missed", kafka.lagSamplesMissed());
        }
        row.put("drain_seconds", drain < 0 ? null : Math.round(drain * 10) / 10.0);
        row.put("lost", lost(rig.productDb(), accepted.keySet()));
        row.put("double_charges", doubleCharges(http, rig.paymentUrl(), accepted.keySet()));
        row.put("cold_start", !warmUp);
        row.put("seconds_to_ready", Math.round(toReady * 10) / 10.0);
        return row;
    }

    /** Inventory turns slow ({@value #SLOW_MS} ms) once {@link #SLOW_FROM} of the load has passed. */
    private final class Slowdown {
        static final int SLOW_MS = 4000;
        private final BenchRig rig;
        private final long start;
        private boolean slow;

        Slowdown(BenchRig rig, long start) {
            this.rig = rig;
            this.start = start;
        }

        void ifDue() throws Exception {
            if (!slow && System.nanoTime() - start >= SLOW_FROM.toNanos()) {
                rig.put(rig.inventoryUrl() + "/_faults", "{\"latencyMs\":" + SLOW_MS + "}");
                out.println("  second 3: inventory now answers in 4 s");
                slow = true;
            }
        }
    }

    /** Inventory answers in 40 ms again; returns when (System.nanoTime()). */
    private long recover(BenchRig rig) throws Exception {
        rig.put(rig.inventoryUrl() + "/_faults", "{\"latencyMs\":40}");
        long recovery = System.nanoTime();
        out.println("  second 12: inventory recovered; waiting for answers and for every accepted order to end");
        return recovery;
    }

    /** Seconds from {@code recovery} until every order of {@code customer} is terminal, or -1 after {@link #DRAIN_LIMIT}. */
    private double drain(BenchRig.Monitor db, String customer, long recovery) throws Exception {
        long lastPrint = 0;
        while (System.nanoTime() - recovery < DRAIN_LIMIT.toNanos()) {
            long stillOpen = open(db, customer);
            if (stillOpen == 0) {
                return (System.nanoTime() - recovery) / 1e9;
            }
            if (System.nanoTime() - lastPrint > 5_000_000_000L) {
                out.printf("  %5.1f s after recovery: %d orders not terminal yet%n",
                        (System.nanoTime() - recovery) / 1e9, stillOpen);
                lastPrint = System.nanoTime();
            }
            Thread.sleep(250);
        }
        return -1;
    }

    /**
     * The {@code --warm-up} variant: each run starts after {@link #WARM_UP_ORDERS} orders at
     * {@link #WARM_UP_RATE}/s, a service warmed by traffic meeting a slow dependency. By default a
     * run starts cold: a freshly started product, ready once it warmed itself (ADR 0016).
     */
    private void warmUp(HttpClient http, URI api, List<String> skus, BenchRig.Monitor db) throws Exception {
        out.printf("  warming up: %d orders at %d/s with a healthy inventory%n", WARM_UP_ORDERS, WARM_UP_RATE);
        List<CompletableFuture<HttpResponse<String>>> warm = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < WARM_UP_ORDERS; i++) {
            long wait = start + i * 1_000_000_000L / WARM_UP_RATE - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            warm.add(http.sendAsync(HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString())
                    .header("X-Deadline", Long.toString(System.currentTimeMillis() + 5000))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"cascade-warm-up\",\"currency\":\"EUR\","
                            + "\"lines\":[{\"sku\":\"" + skus.get(i % SKUS) + "\",\"quantity\":1,\"unitPriceCents\":500}]}")).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        CompletableFuture.allOf(warm.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (open(db, "cascade-warm-up") > 0 && System.nanoTime() < until) {
            Thread.sleep(250);
        }
    }

    /** The {@code --warm-up} variant through Kafka: the same orders and rate as PlaceOrder commands. */
    private void warmUp(BenchRig rig, List<String> skus) throws Exception {
        out.printf("  warming up: %d PlaceOrder commands at %d/s with a healthy inventory%n", WARM_UP_ORDERS, WARM_UP_RATE);
        try (KafkaOrders warming = new KafkaOrders(rig.kafka())) {
            warming.sendAtRate(WARM_UP_RATE, WARM_UP_ORDERS, "cascade-warm-up", skus, sent -> { });
            warming.awaitOutcomes(Duration.ofSeconds(60));
        }
        long until = System.nanoTime() + Duration.ofSeconds(90).toNanos();
        while (open(rig.monitor(), "cascade-warm-up") > 0 && System.nanoTime() < until) {
            Thread.sleep(250);
        }
    }

    private static String classify(HttpResponse<String> r, Throwable e, Set<UUID> accepted) {
        if (e != null || r == null) {
            return "failed";
        }
        if (r.statusCode() == 202) {
            JsonNode body = SafeJson.read(r.body());
            accepted.add(UUID.fromString(body.get("orderId").asText()));
            return "PENDING_CONFIRMATION".equals(body.path("status").asText()) ? "pending" : "accepted";
        }
        if (r.statusCode() == 503) {
            String type = SafeJson.read(r.body()).path("type").asText();
            if (type.endsWith("/overloaded") || type.endsWith("/deadline-passed") || type.endsWith("/pending-cap")) {
                return "shed";
            }
        }
        return "failed";
    }

    /** What a failed submission met: its status and problem type, or the client's exception. */
    private static String failure(HttpResponse<String> r, Throwable e) {
        if (e != null || r == null) {
            Throwable cause = e instanceof java.util.concurrent.CompletionException && e.getCause() != null
                    ? e.getCause() : e;
            return cause == null ? "no answer" : cause.getClass().getSimpleName();
        }
        return r.statusCode() + " " + SafeJson.read(r.body()).path("type").asText();
    }

    private static long open(BenchRig.Monitor db, String customer) throws Exception {
        return db.count("SELECT count(*) FROM orders WHERE customer_id = ?"
                + " AND status NOT IN ('CONFIRMED', 'CANCELLED', 'REJECTED')", customer);
    }

    /** Accepted orders that are not terminal now, or not stored at all. */
    private static long lost(Connection c, Set<UUID> accepted) throws Exception {
        long lost = 0;
        try (PreparedStatement s = c.prepareStatement("SELECT status FROM orders WHERE order_id = ?")) {
            for (UUID id : accepted) {
                s.setObject(1, id);
                var rs = s.executeQuery();
                if (!rs.next() || !Set.of("CONFIRMED", "CANCELLED").contains(rs.getString(1))) {
                    lost++;
                }
            }
        }
        return lost;
    }

    private static long doubleCharges(HttpClient http, String paymentUrl, Set<UUID> accepted) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(paymentUrl + "/charges"))
                .header("Authorization", "Bearer " + BenchRig.LEDGER_TOKEN).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        Map<String, Integer> captured = new HashMap<>();
        for (JsonNode charge : SafeJson.read(r.body())) {
            if ("CAPTURED".equals(charge.path("status").asText())) {
                captured.merge(charge.path("orderId").asText(), 1, Integer::sum);
            }
        }
        return accepted.stream().filter(id -> captured.getOrDefault(id.toString(), 0) > 1).count();
    }

    private static int count(Map<String, AtomicInteger> outcomes, String key) {
        AtomicInteger n = outcomes.get(key);
        return n == null ? 0 : n.get();
    }

    private void table(List<Map<String, Object>> rows) {
        out.println();
        out.println("| config | sent | accepted | pending | failed | shed | p50 ms | p99 ms | drain s | lost | double charges |");
        out.println("|---|---|---|---|---|---|---|---|---|---|---|");
        for (Map<String, Object> r : rows) {
            out.printf("| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |%n", r.get("config"), r.get("sent"),
                    r.get("accepted"), r.get("pending"), r.get("failed"), r.getOrDefault("shed", "-"), r.get("p50_ms"),
                    r.get("p99_ms"), r.get("drain_seconds") == null ? "> 120" : r.get("drain_seconds"), r.get("lost"),
                    r.get("double_charges"));
        }
        if (via == Benchmarks.Via.KAFKA) {
            // A command has no 503: what the REST rows call shed or failed is a refusal here.
            out.println("(via kafka: p50 / p99 = command to outcome on orders.events, failed = not sent or no outcome)");
            out.println();
            out.println("| config | via | refused | consumer lag max | lag samples missed |");
            out.println("|---|---|---|---|---|");
            for (Map<String, Object> r : rows) {
                out.printf("| %s | %s | %s | %s | %s |%n", r.get("config"), r.get("via"), r.get("refused"),
                        r.get("consumer_lag_max"), r.get("consumer_lag_samples_missed"));
            }
        }
        ThreadGroupTable.print(out, rows, ThreadGroupTable.columns("config", "config"),
                "(the product JVM's CPU ms per accepted order by thread group, from the load's start to the drain's end)");
    }

    /** JSON reading that never throws on a non-JSON body (an HTML error page, say). */
    private static final class SafeJson {
        static JsonNode read(String body) {
            try {
                return Json.mapper().readTree(body);
            } catch (Exception e) {
                return Json.mapper().createObjectNode();
            }
        }
    }
}
