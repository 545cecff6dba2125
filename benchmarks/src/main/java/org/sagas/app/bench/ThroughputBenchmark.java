package org.sagas.app.bench;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.sagas.app.Settings;
import org.sagas.orchestrator.Json;
import org.sagas.testkit.ThreadCpu;

/**
 * {@code ./sagas bench throughput}: the product (every role but the sandbox), the sandbox
 * participants and this client each in a process of their own ({@link BenchRig}); a freshly
 * started product (cold: no warm-up phase of the benchmark's, unless {@code --warm-up}) driven
 * over HTTP with a fixed number of clients until every accepted order is terminal. Reports
 * orders/s to CONFIRMED, submit p50/p99 and submit-to-confirmed p50/p99, and what one confirmed
 * order costs each process group: CPU (the product's JVM, its PostgreSQL backends, its share of
 * PostgreSQL's shared work, the broker; the participants'; the client's) and PostgreSQL
 * transactions, rows written and WAL per database; beside the machine's limit measured in the
 * same run: saga-shaped PostgreSQL transactions (one saga row + one outbox row, one commit) per
 * second at the same concurrency.
 */
final class ThroughputBenchmark {
    private static final int SKUS = 1000;
    private static final Duration WARM_UP = Duration.ofSeconds(15);
    private static final String CUSTOMER = "bench";
    private static final String WARM_CUSTOMER = "bench-warm-up";
    private static final String LOAD_THREADS = "bench-load-";
    private final PrintStream out;
    private final int orders;
    private final int concurrency;
    private final Duration duration;
    private final int providerLatencyMillis;
    private final boolean warmUp;
    private List<Map<String, Object>> statements = List.of();

    /**
     * @param providerLatencyMillis how long the sandbox payment provider takes to answer (0: at once)
     * @param warmUp whether to run {@link #WARM_UP} of the same load before measuring (default: cold)
     */
    ThroughputBenchmark(PrintStream out, int orders, int concurrency, Duration duration, int providerLatencyMillis,
            boolean warmUp) {
        this.out = out;
        this.orders = orders;
        this.concurrency = concurrency;
        this.duration = duration;
        this.providerLatencyMillis = providerLatencyMillis;
        this.warmUp = warmUp;
    }

    Map<String, Object> run(Settings settings, Path resultFile) throws Exception {
        try (BenchRig rig = BenchRig.start(settings, out)) {
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
                    .executor(Executors.newFixedThreadPool(Math.max(4, concurrency), loadThreads())).build();
            // A catalogue, not one hot row: the benchmark measures the orchestrator, not one SKU's lock.
            List<String> skus = java.util.stream.IntStream.range(0, SKUS).mapToObj(i -> "BENCH-" + i).toList();
            for (String sku : skus) {
                rig.put(rig.inventoryUrl() + "/stock/" + sku, "{\"available\":100000000}");
            }
            if (providerLatencyMillis > 0) {
                // A real provider takes its time; the sandbox's fault API makes it answer that late.
                rig.put(rig.paymentUrl() + "/_faults", "{\"latencyMs\":" + providerLatencyMillis + "}");
                out.printf("the payment provider answers in %d ms%n", providerLatencyMillis);
            }
            out.println("starting the product (a process of its own, cold)...");
            double toReady = rig.startProduct(Map.of());
            out.printf("product ready after %.1f s%n", toReady);
            URI api = rig.ordersUri();
            if (warmUp) {
                warmUp(http, api, skus, rig.monitor());
            }
            Map<String, Object> result = load(http, api, skus, rig);
            result.put("cold_start", !warmUp);
            result.put("seconds_to_ready", round(toReady));
            result.put("db_limit_tps", dbLimit(rig));
            result.put("concurrency", concurrency);
            result.put("provider_latency_ms", providerLatencyMillis);
            print(result);
            if (!statements.isEmpty()) {
                out.println();
                out.println("the product's statements, per confirmed order (pg_stat_statements):");
                statements.forEach(st -> out.printf("  %6s calls %6s rows %6s B WAL  %s%n", st.get("calls_per_order"),
                        st.get("rows_per_order"), st.get("wal_bytes_per_order"), st.get("statement")));
                result.put("product_statements", statements);
            }
            Files.createDirectories(resultFile.getParent());
            Files.writeString(resultFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(result));
            out.println("written to " + resultFile);
            return result;
        }
    }

    /**
     * The {@code --warm-up} variant: runs the same load for {@link #WARM_UP} first and waits for it
     * to end, so that the figures are those of a service warmed by traffic, not of its first seconds.
     */
    private void warmUp(HttpClient http, URI api, List<String> skus, BenchRig.Monitor db) throws Exception {
        out.printf("warming up: %d s of the same load, not counted...%n", WARM_UP.toSeconds());
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        long end = System.nanoTime() + WARM_UP.toNanos();
        for (int c = 0; c < concurrency; c++) {
            int client = c;
            pool.execute(() -> {
                for (int i = client; System.nanoTime() < end; i += concurrency) {
                    try {
                        submit(http, api, skus.get(i % skus.size()), "warm-" + UUID.randomUUID(), WARM_CUSTOMER);
                    } catch (Exception e) {
                        return;
                    }
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(WARM_UP.toSeconds() + 30, TimeUnit.SECONDS);
        long until = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (open(db, WARM_CUSTOMER) > 0 && System.nanoTime() < until) {
            Thread.sleep(200);
        }
    }

    private Map<String, Object> load(HttpClient http, URI api, List<String> skus, BenchRig rig) throws Exception {
        Latencies submitLatency = new Latencies();
        Map<UUID, Boolean> accepted = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Semaphore slots = new Semaphore(concurrency);
        ExecutorService pool = Executors.newFixedThreadPool(concurrency, loadThreads());
        BenchRig.Monitor db = rig.monitor();
        double loadBefore = loadAverage();
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        CpuMeter cpu = rig.cpuMeter();
        Map<Long, String> backends = new HashMap<>(rig.backendGroups());
        DbCounters.resetStatements(rig.stats());
        CpuMeter.Reading cpuBefore = cpu.read();
        ThreadCpu threads = new ThreadCpu();
        Map<String, Duration> threadsBefore = threads.read(rig.productPid());
        DbCounters dbBefore = DbCounters.read(rig.stats(), rig.productDbName(), BenchRig.SANDBOX_DB);
        long monitorBefore = db.statements();
        Thread progress = progress(sent, accepted, db, start);
        out.printf("driving %d orders or %d s, whichever ends first, with %d clients...%n", orders,
                duration.toSeconds(), concurrency);
        while (sent.get() < orders && System.nanoTime() < end) {
            slots.acquire();
            int n = sent.incrementAndGet();
            pool.execute(() -> {
                try {
                    long t0 = System.nanoTime();
                    HttpResponse<String> r = submit(http, api, skus.get(n % skus.size()), "bench-" + UUID.randomUUID(),
                            CUSTOMER);
                    submitLatency.add((System.nanoTime() - t0) / 1000);
                    if (r.statusCode() == 202) {
                        accepted.put(UUID.fromString(Json.mapper().readTree(r.body()).get("orderId").asText()), true);
                    } else {
                        failed.incrementAndGet();
                    }
                } catch (Exception e) {
                    failed.incrementAndGet();
                } finally {
                    slots.release();
                }
            });
        }
        slots.tryAcquire(concurrency, 60, TimeUnit.SECONDS);
        double submitSeconds = (System.nanoTime() - start) / 1e9;
        out.printf("submitted %d in %.1f s; waiting for every accepted order to end...%n", sent.get(), submitSeconds);
        long waitUntil = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (open(db, CUSTOMER) > 0 && System.nanoTime() < waitUntil) {
            Thread.sleep(200);
        }
        backends.putAll(rig.backendGroups());
        Map<String, Duration> cpuUsed = CpuMeter.between(cpuBefore, cpu.read(), backends);
        Map<String, Duration> threadsUsed = ThreadCpu.between(threadsBefore, threads.read(rig.productPid()));
        long monitorStatements = db.statements() - monitorBefore;
        Thread.sleep(1000); // PostgreSQL publishes its counters at most every 500 ms
        DbCounters dbUsed = DbCounters.read(rig.stats(), rig.productDbName(), BenchRig.SANDBOX_DB).minus(dbBefore);
        pool.shutdown();
        progress.interrupt();
        Map<String, Object> r = new LinkedHashMap<>();
        try (Statement s = rig.productDb().createStatement()) {
            var rs = s.executeQuery("SELECT count(*),"
                    + " percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at)),"
                    + " percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at)),"
                    + " extract(epoch FROM max(updated_at) - min(created_at))"
                    + " FROM orders WHERE status = 'CONFIRMED' AND customer_id = '" + CUSTOMER + "'");
            rs.next();
            long confirmed = rs.getLong(1);
            double span = rs.getDouble(4);
            r.put("orders_sent", sent.get());
            r.put("orders_accepted", accepted.size());
            r.put("orders_failed", failed.get());
            r.put("orders_confirmed", confirmed);
            r.put("orders_per_second", round(span > 0 ? confirmed / span : 0));
            r.put("submit_p50_ms", round(submitLatency.percentileMillis(50)));
            r.put("submit_p99_ms", round(submitLatency.percentileMillis(99)));
            r.put("confirm_p50_ms", round(rs.getDouble(2) * 1000));
            r.put("confirm_p99_ms", round(rs.getDouble(3) * 1000));
            new OrderCost(cpuUsed, dbUsed, monitorStatements, confirmed, rig.productDbName(), BenchRig.SANDBOX_DB)
                    .into(r);
            // The product JVM's share by thread group, so a change shows where its CPU went.
            threadsUsed.forEach((group, used) -> r.put("product_cpu_ms_per_order_thread_" + group, confirmed == 0
                    ? null : round(used.toNanos() / 1e6 / confirmed)));
            // Where the product's transactions and rows go, statement by statement.
            statements = DbCounters.topStatements(rig.stats(), rig.productDbName(), confirmed, 25);
        }
        r.put("load_average_at_start", round(loadBefore));
        r.put("load_average_at_end", round(loadAverage()));
        return r;
    }

    private static ThreadFactory loadThreads() {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            Thread t = new Thread(task, LOAD_THREADS + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    private Thread progress(AtomicInteger sent, Map<UUID, Boolean> accepted, BenchRig.Monitor db, long start) {
        Thread t = new Thread(() -> {
            while (!Thread.currentThread().isInterrupted()) {
                try {
                    Thread.sleep(1000);
                    out.printf("  %4.0f s  sent %7d  accepted %7d  confirmed %7d%n", (System.nanoTime() - start) / 1e9,
                            sent.get(), accepted.size(), confirmed(db));
                } catch (InterruptedException e) {
                    return;
                } catch (Exception e) {
                    out.println("  (progress unavailable: " + e.getMessage() + ")");
                }
            }
        }, "bench-progress");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static HttpResponse<String> submit(HttpClient http, URI api, String sku, String key, String customer)
            throws Exception {
        String body = "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + sku
                + "\",\"quantity\":1,\"unitPriceCents\":990}]}";
        return http.send(HttpRequest.newBuilder(api).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .header("X-Deadline", Long.toString(System.currentTimeMillis() + 2000))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static long open(BenchRig.Monitor db, String customer) throws Exception {
        return db.count("SELECT count(*) FROM orders WHERE customer_id = ? AND status IN"
                + " ('PENDING_CONFIRMATION', 'AWAITING_PAYMENT', 'COMPENSATING')", customer);
    }

    private static long confirmed(BenchRig.Monitor db) throws Exception {
        return db.count("SELECT count(*) FROM orders WHERE customer_id = ? AND status = 'CONFIRMED'", CUSTOMER);
    }

    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    /** Saga-shaped transactions per second at the benchmark's concurrency: the machine's ceiling. */
    private double dbLimit(BenchRig rig) throws Exception {
        try (com.zaxxer.hikari.HikariDataSource db = rig.benchPool(concurrency)) {
            return dbLimit(db);
        }
    }

    private double dbLimit(DataSource db) throws Exception {
        out.printf("measuring the machine's limit: saga row + outbox row, one commit, %d clients, 5 s...%n",
                concurrency);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_saga, bench_outbox");
            s.execute("CREATE TABLE bench_saga (LIKE saga_instance INCLUDING ALL)");
            s.execute("CREATE TABLE bench_outbox (LIKE outbox INCLUDING ALL)");
        }
        AtomicLong commits = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(concurrency);
        long end = System.nanoTime() + Duration.ofSeconds(5).toNanos();
        for (int i = 0; i < concurrency; i++) {
            pool.execute(() -> {
                try (Connection c = db.getConnection();
                        PreparedStatement saga = c.prepareStatement("INSERT INTO bench_saga (saga_id, saga_type, status,"
                                + " step, label, data) VALUES (?, 'bench', 'RUNNING', 'RESERVE_STOCK', 'NEW',"
                                + " '{\"orderId\":1}'::jsonb)");
                        PreparedStatement outbox = c.prepareStatement("INSERT INTO bench_outbox (aggregate_id, topic,"
                                + " message_id, message_type, payload) VALUES (?, 'bench', ?, 'Bench', '{}')")) {
                    c.setAutoCommit(false);
                    while (System.nanoTime() < end) {
                        UUID id = UUID.randomUUID();
                        saga.setObject(1, id);
                        saga.executeUpdate();
                        outbox.setString(1, id.toString());
                        outbox.setObject(2, UUID.randomUUID());
                        outbox.executeUpdate();
                        c.commit();
                        commits.incrementAndGet();
                    }
                } catch (Exception e) {
                    out.println("  db limit client failed: " + e.getMessage());
                }
            });
        }
        pool.shutdown();
        pool.awaitTermination(30, TimeUnit.SECONDS);
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            s.execute("DROP TABLE IF EXISTS bench_saga, bench_outbox");
        }
        return round(commits.get() / 5.0);
    }

    private void print(Map<String, Object> r) {
        out.println();
        out.println("| figure | value |");
        out.println("|---|---|");
        r.forEach((k, v) -> out.printf("| %s | %s |%n", k, v));
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }
}
