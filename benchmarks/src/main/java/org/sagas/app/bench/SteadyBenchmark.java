package org.sagas.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * {@code ./sagas bench steady}: healthy load must not be degraded (docs/design.md,
 * "Performance targets"). A freshly
 * started product (cold: its own warm-up before ready, none of the benchmark's unless
 * {@code --warm-up}), a client in another process sending a steady, open-loop {@code rate} of
 * orders (100/s) for {@code duration}, inventory healthy at 40 ms; once with every order on one
 * hot SKU, once spread over {@value #SPREAD} SKUs, each on a product started afresh. Reports the
 * 503s, the orders parked (answered {@code PENDING_CONFIRMATION}), submit p50/p99/max, accepted to
 * confirmed p50/p99 (with {@code --rate} at 80 % of the throughput benchmark's rate: confirmations
 * must not starve while clients are served) and the product's cost per order. Targets: no 503,
 * none parked, submit p99 under 100 ms. With {@code --via kafka} the orders are {@code PlaceOrder}
 * commands on {@code orders.commands} instead ({@link KafkaOrders}): "submit" is then the time from
 * sending a command to reading its outcome on {@code orders.events}, and the row adds the largest lag
 * of the api's consumer group seen during the run.
 */
final class SteadyBenchmark {
    static final int SPREAD = 100;
    static final Duration WARM_UP = Duration.ofSeconds(10);
    static final double P99_TARGET_MS = 100;
    static final Duration INVENTORY_ALONE = Duration.ofSeconds(5);

    private final PrintStream out;
    private final int rate;
    private final Duration duration;
    private final boolean warmUp;
    private final Benchmarks.Via via;

    SteadyBenchmark(PrintStream out, int rate, Duration duration, boolean warmUp, Benchmarks.Via via) {
        this.out = out;
        this.rate = rate;
        this.duration = duration;
        this.warmUp = warmUp;
        this.via = via;
    }

    List<Map<String, Object>> run(Settings settings, Path resultFile) throws Exception {
        List<Map<String, Object>> rows = new ArrayList<>();
        try (BenchRig rig = BenchRig.start(settings, out)) {
            rig.put(rig.inventoryUrl() + "/_faults", "{\"latencyMs\":40,\"errorRate\":0.0,\"down\":false}");
            String run = UUID.randomUUID().toString().substring(0, 8);
            for (String layout : List.of("hot-sku", "spread-skus")) {
                List<String> skus = rig.stockedSkus("STEADY-" + run + "-" + layout, layout.equals("hot-sku") ? 1 : SPREAD,
                        10_000_000);
                rows.add(scenario(rig, layout, skus));
                rig.stopProduct();
            }
        }
        table(rows);
        Files.createDirectories(resultFile.getParent());
        Files.writeString(resultFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(rows));
        out.println("written to " + resultFile);
        return rows;
    }

    private Map<String, Object> scenario(BenchRig rig, String layout, List<String> skus) throws Exception {
        out.printf("%n== %s: %d orders/s through %s for %d s, inventory at 40 ms, %s ==%n", layout, rate,
                via == Benchmarks.Via.KAFKA ? "orders.commands" : "POST /orders", duration.toSeconds(), warmUp ? "after " + WARM_UP.toSeconds() + " s of warm-up load" : "cold start");
        Latencies inventoryAlone = inventoryAlone(rig, skus);
        out.printf("  inventory alone at %d reservations/s: p50 %.1f ms, p99 %.1f ms%n", rate,
                inventoryAlone.percentileMillis(50), inventoryAlone.percentileMillis(99));
        double toReady = rig.startProduct(Map.of());
        out.printf("  product ready after %.1f s%n", toReady);
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .executor(Executors.newFixedThreadPool(8)).build();
        String customer = "steady-" + layout + "-" + UUID.randomUUID().toString().substring(0, 8);
        KafkaOrders kafka = via == Benchmarks.Via.KAFKA ? new KafkaOrders(rig.kafka()) : null;
        if (warmUp) {
            if (kafka != null) {
                try (KafkaOrders warming = new KafkaOrders(rig.kafka())) {
                    openLoop(warming, skus, customer + "-warm-up", (int) (rate * WARM_UP.toSeconds()));
                }
            } else {
                openLoop(http, rig.ordersUri(), skus, customer + "-warm-up", (int) (rate * WARM_UP.toSeconds()),
                        new Latencies(), new ConcurrentHashMap<>(), new ConcurrentHashMap<>());
            }
            awaitTerminal(rig.monitor(), customer + "-warm-up");
        }
        Latencies latencies = kafka != null ? kafka.latencies() : new Latencies();
        Map<String, AtomicInteger> outcomes = kafka != null ? kafka.outcomes() : new ConcurrentHashMap<>();
        Map<UUID, Boolean> accepted = kafka != null ? kafka.accepted() : new ConcurrentHashMap<>();
        CpuMeter cpu = rig.cpuMeter();
        Map<Long, String> backends = new HashMap<>(rig.backendGroups());
        CpuMeter.Reading cpuBefore = cpu.read();
        ThreadCpu threads = new ThreadCpu();
        Map<String, Duration> threadsBefore = threads.read(rig.productPid());
        DbCounters.resetStatements(rig.stats());
        DbCounters dbBefore = DbCounters.read(rig.stats(), rig.productDbName(), BenchRig.SANDBOX_DB);
        long monitorBefore = rig.monitor().statements();
        double loadBefore = loadAverage();
        int total = (int) (rate * duration.toSeconds());
        if (kafka != null) {
            openLoop(kafka, skus, customer, total);
        } else {
            openLoop(http, rig.ordersUri(), skus, customer, total, latencies, outcomes, accepted);
        }
        double drain = awaitTerminal(rig.monitor(), customer);
        if (kafka != null) {
            kafka.close();
        }
        backends.putAll(rig.backendGroups());
        Map<String, Duration> cpuUsed = CpuMeter.between(cpuBefore, cpu.read(), backends);
        Map<String, Duration> threadsUsed = ThreadCpu.between(threadsBefore, threads.read(rig.productPid()));
        long monitorStatements = rig.monitor().statements() - monitorBefore;
        Thread.sleep(1000); // PostgreSQL publishes its counters at most every 500 ms
        DbCounters dbUsed = DbCounters.read(rig.stats(), rig.productDbName(), BenchRig.SANDBOX_DB).minus(dbBefore);

        Map<String, Object> row = new LinkedHashMap<>();
        row.put("layout", layout);
        row.put("via", via.label());
        row.put("cold_start", !warmUp);
        row.put("rate", rate);
        row.put("sent", total);
        row.put("accepted", count(outcomes, "accepted") + count(outcomes, "parked"));
        row.put("parked", count(outcomes, "parked"));
        row.put("shed_503", count(outcomes, "503"));
        row.put("failed", count(outcomes, "failed") + count(outcomes, "unreadable_outcome"));
        if (kafka != null) {
            row.put("refused", count(outcomes, "refused"));
            row.put("consumer_lag_max", kafka.maxLag());
            row.put("consumer_lag_samples_missed", kafka.lagSamplesMissed());
        }
        row.put("submit_p50_ms", round(latencies.percentileMillis(50)));
        row.put("submit_p99_ms", round(latencies.percentileMillis(99)));
        row.put("submit_max_ms", round(latencies.maxMillis()));
        row.put("submit_p99_first_second_ms", kafka != null ? null : round(firstSecondP99));
        row.put("seconds_to_terminal_after_load", drain < 0 ? null : round(drain));
        Confirmations confirmations = confirmations(rig, customer);
        long confirmed = confirmations.count();
        row.put("confirmed", confirmed);
        row.put("confirm_p50_ms", round(confirmations.p50Ms()));
        row.put("confirm_p99_ms", round(confirmations.p99Ms()));
        row.put("seconds_to_ready", round(toReady));
        row.put("inventory_alone_p50_ms", round(inventoryAlone.percentileMillis(50)));
        row.put("inventory_alone_p99_ms", round(inventoryAlone.percentileMillis(99)));
        row.put("load_average_at_start", round(loadBefore));
        row.put("load_average_at_end", round(loadAverage()));
        Map<String, Object> cost = new LinkedHashMap<>();
        new OrderCost(cpuUsed, dbUsed, monitorStatements, confirmed, rig.productDbName(), BenchRig.SANDBOX_DB)
                .into(cost);
        for (String k : List.of("product_cpu_ms_per_order", "product_cpu_ms_per_order_jvm",
                "product_cpu_ms_per_order_postgres", "product_cpu_ms_per_order_broker", "product_transactions_per_order",
                "product_rows_per_order", "product_wal_bytes_per_order", "participants_cpu_ms_per_order",
                "client_cpu_ms_per_order")) {
            row.put(k, cost.get(k));
        }
        row.put(ThreadGroupTable.KEY, ThreadGroupTable.perOrder(threadsUsed, confirmed));
        // Where the product's transactions go at this rate, statement by statement: what a low rate
        // pays per order that a busier one shares.
        row.put("product_statements", DbCounters.topStatements(rig.stats(), rig.productDbName(), confirmed, 12));
        // The targets are the REST submit's; a command's time to its outcome includes the consumer's wait.
        row.put("targets_met", kafka != null ? null : count(outcomes, "503") == 0 && count(outcomes, "parked") == 0
                && latencies.percentileMillis(99) < P99_TARGET_MS);
        Map<String, Object> shown = new LinkedHashMap<>(row);
        shown.remove("product_statements");
        out.println("  " + shown);
        return row;
    }

    private volatile double firstSecondP99;

    /**
     * The participant on its own: {@link #INVENTORY_ALONE} of reservations sent straight to the
     * sandbox inventory at the same rate and SKU layout, so a degraded run can be told apart from
     * a participant that could not keep up (a hot SKU is one stock row every reservation locks).
     */
    private Latencies inventoryAlone(BenchRig rig, List<String> skus) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5))
                .executor(Executors.newFixedThreadPool(8)).build();
        Latencies latencies = new Latencies();
        List<CompletableFuture<Void>> inFlight = new ArrayList<>();
        URI reservations = URI.create(rig.inventoryUrl() + "/reservations");
        int total = (int) (rate * INVENTORY_ALONE.toSeconds());
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
            long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            long t0 = System.nanoTime();
            inFlight.add(http.sendAsync(HttpRequest.newBuilder(reservations).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").header("Idempotency-Key", "alone-" + UUID.randomUUID())
                    .POST(HttpRequest.BodyPublishers.ofString("{\"orderId\":\"" + UUID.randomUUID()
                            + "\",\"lines\":[{\"sku\":\"" + skus.get(i % skus.size()) + "\",\"quantity\":1}]}"))
                    .build(), HttpResponse.BodyHandlers.discarding())
                    .handle((r, e) -> {
                        latencies.add((System.nanoTime() - t0) / 1000);
                        return null;
                    }));
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        return latencies;
    }

    /** Sends {@code total} orders at {@link #rate} per second, not waiting for answers to send the next. */
    private void openLoop(HttpClient http, URI api, List<String> skus, String customer, int total, Latencies latencies,
            Map<String, AtomicInteger> outcomes, Map<UUID, Boolean> accepted) throws Exception {
        Latencies firstSecond = new Latencies();
        List<CompletableFuture<Void>> inFlight = new ArrayList<>();
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
            long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            boolean first = i < rate;
            long t0 = System.nanoTime();
            HttpRequest request = HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString())
                    .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"" + customer
                            + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + skus.get(i % skus.size())
                            + "\",\"quantity\":1,\"unitPriceCents\":500}]}")).build();
            inFlight.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((r, e) -> {
                long micros = (System.nanoTime() - t0) / 1000;
                latencies.add(micros);
                if (first) {
                    firstSecond.add(micros);
                }
                outcomes.computeIfAbsent(classify(r, e, accepted), k -> new AtomicInteger()).incrementAndGet();
                return null;
            }));
            if (i % rate == rate - 1) {
                out.printf("  %2d s  sent %5d  answered %5d%n", (i + 1) / rate, i + 1, latencies.count());
            }
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        firstSecondP99 = firstSecond.percentileMillis(99);
    }

    /**
     * Sends {@code total} PlaceOrder commands at {@link #rate} per second, then waits (up to 60 s) for
     * their outcomes; the latencies and outcomes are {@code kafka}'s.
     */
    private void openLoop(KafkaOrders kafka, List<String> skus, String customer, int total) throws Exception {
        kafka.sendAtRate(rate, total, customer, skus, sent -> {
            if (sent % rate == 0) {
                out.printf("  %2d s  sent %5d  answered %5d%n", sent / rate, sent, kafka.latencies().count());
            }
        });
        if (!kafka.awaitOutcomes(Duration.ofSeconds(60))) {
            out.printf("  %d commands without an outcome after 60 s%n", kafka.unanswered());
        }
    }

    private static String classify(HttpResponse<String> r, Throwable e, Map<UUID, Boolean> accepted) {
        if (e != null || r == null) {
            return "failed";
        }
        if (r.statusCode() == 503) {
            return "503";
        }
        if (r.statusCode() != 202) {
            return "failed";
        }
        try {
            JsonNode body = Json.mapper().readTree(r.body());
            accepted.put(UUID.fromString(body.get("orderId").asText()), true);
            return "PENDING_CONFIRMATION".equals(body.path("status").asText()) ? "parked" : "accepted";
        } catch (Exception ex) {
            return "failed";
        }
    }

    /** Seconds until every order of {@code customer} is terminal, or -1 after two minutes. */
    private static double awaitTerminal(BenchRig.Monitor db, String customer) throws Exception {
        long start = System.nanoTime();
        while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(120)) {
            if (db.count("SELECT count(*) FROM orders WHERE customer_id = ?"
                    + " AND status NOT IN ('CONFIRMED', 'CANCELLED', 'REJECTED')", customer) == 0) {
                return (System.nanoTime() - start) / 1e9;
            }
            Thread.sleep(200);
        }
        return -1;
    }

    /** How many of the run's orders were confirmed, and how long each took from accepted to confirmed. */
    private record Confirmations(long count, double p50Ms, double p99Ms) {
    }

    private static Confirmations confirmations(BenchRig rig, String customer) throws Exception {
        try (PreparedStatement s = rig.productDb().prepareStatement("SELECT count(*),"
                + " percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at)),"
                + " percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at))"
                + " FROM orders WHERE customer_id = ? AND status = 'CONFIRMED'")) {
            s.setString(1, customer);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return new Confirmations(rs.getLong(1), rs.getDouble(2) * 1000, rs.getDouble(3) * 1000);
            }
        }
    }

    private static int count(Map<String, AtomicInteger> outcomes, String key) {
        AtomicInteger n = outcomes.get(key);
        return n == null ? 0 : n.get();
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private void table(List<Map<String, Object>> rows) {
        out.println();
        out.println("| layout | via | inventory alone p50 / p99 ms | sent | accepted | parked | 503 | failed"
                + " | submit (via kafka: command to outcome) p50 ms | p99 ms | max ms | first-second p99 ms"
                + " | consumer lag max | confirm p50 / p99 ms | product CPU ms/order | targets met |");
        out.println("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (Map<String, Object> r : rows) {
            out.printf("| %s | %s | %s / %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s |%n",
                    r.get("layout"), r.get("via"), r.get("inventory_alone_p50_ms"), r.get("inventory_alone_p99_ms"), r.get("sent"),
                    r.get("accepted"), r.get("parked"), r.get("shed_503"), r.get("failed"), r.get("submit_p50_ms"),
                    r.get("submit_p99_ms"), r.get("submit_max_ms"), r.get("submit_p99_first_second_ms"),
                    r.getOrDefault("consumer_lag_max", "-"), r.get("confirm_p50_ms"), r.get("confirm_p99_ms"),
                    r.get("product_cpu_ms_per_order"), r.get("targets_met"));
        }
        // The product JVM's CPU per order by thread group (JSON: product_cpu_ms_per_order_by_thread_group).
        ThreadGroupTable.print(out, rows, ThreadGroupTable.columns("layout", "layout", "JVM",
                "product_cpu_ms_per_order_jvm", "PostgreSQL", "product_cpu_ms_per_order_postgres", "broker",
                "product_cpu_ms_per_order_broker"), "(product CPU ms per order: by process, then the JVM's by thread group)");
    }
}
