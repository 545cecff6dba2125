package org.sagas.app;

import java.io.ByteArrayOutputStream;
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
import org.sagas.app.bench.CpuMeter;
import org.sagas.app.bench.Latencies;
import org.sagas.orchestrator.Json;

/**
 * {@code ./sagas bench throughput}: starts the product on its embedded default, drives it over
 * HTTP with a fixed number of clients, waits until every accepted order is terminal, and reports
 * orders/s to CONFIRMED, submit p50/p99 and submit-to-confirmed p50/p99 beside the machine's limit
 * measured in the same run: saga-shaped PostgreSQL transactions (one saga row + one outbox row,
 * one commit) per second at the same concurrency.
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

    /** @param providerLatencyMillis how long the sandbox payment provider takes to answer (0: at once) */
    ThroughputBenchmark(PrintStream out, int orders, int concurrency, Duration duration, int providerLatencyMillis) {
        this.out = out;
        this.orders = orders;
        this.concurrency = concurrency;
        this.duration = duration;
        this.providerLatencyMillis = providerLatencyMillis;
    }

    Map<String, Object> run(Settings settings, Path resultFile) throws Exception {
        out.printf("starting the product (embedded) for the benchmark...%n");
        try (Product product = Product.up(settings, new PrintStream(new ByteArrayOutputStream()))) {
            URI api = URI.create("http://" + settings.host() + ":" + product.apiPort() + "/orders");
            DataSource db = product.node().dataSource;
            HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2))
                    .executor(Executors.newFixedThreadPool(Math.max(4, concurrency), loadThreads())).build();
            // A catalogue, not one hot row: the benchmark measures the orchestrator, not one SKU's lock.
            List<String> skus = java.util.stream.IntStream.range(0, SKUS).mapToObj(i -> "BENCH-" + i).toList();
            for (String sku : skus) {
                http.send(HttpRequest.newBuilder(URI.create(settings.inventoryUrl() + "/stock/" + sku))
                        .PUT(HttpRequest.BodyPublishers.ofString("{\"available\":100000000}"))
                        .header("Content-Type", "application/json").build(), HttpResponse.BodyHandlers.discarding());
            }
            if (providerLatencyMillis > 0) {
                // A real provider takes its time; the sandbox's fault API makes it answer that late.
                URI faults = URI.create(settings.paymentUrl() + "/_faults");
                String body = "{\"latencyMs\":" + providerLatencyMillis + "}";
                HttpResponse<String> set = http.send(HttpRequest.newBuilder(faults)
                        .PUT(HttpRequest.BodyPublishers.ofString(body)).header("Content-Type", "application/json")
                        .build(), HttpResponse.BodyHandlers.ofString());
                if (set.statusCode() != 200) {
                    throw new IllegalStateException("could not set the provider's latency: " + set.body());
                }
                out.printf("the payment provider answers in %d ms%n", providerLatencyMillis);
            }
            warmUp(http, api, skus, db);
            Map<String, Object> result = load(http, api, skus, db);
            result.put("db_limit_tps", dbLimit(db));
            result.put("concurrency", concurrency);
            result.put("provider_latency_ms", providerLatencyMillis);
            print(result);
            Files.createDirectories(resultFile.getParent());
            Files.writeString(resultFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(result));
            out.println("written to " + resultFile);
            return result;
        }
    }

    /**
     * Runs the same load for {@link #WARM_UP} first and waits for it to end, so that the figures are
     * those of a warm service (compiled code, filled pools), not of its first seconds.
     */
    private void warmUp(HttpClient http, URI api, List<String> skus, DataSource db) throws Exception {
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

    private Map<String, Object> load(HttpClient http, URI api, List<String> skus, DataSource db) throws Exception {
        Latencies submitLatency = new Latencies();
        Map<UUID, Boolean> accepted = new ConcurrentHashMap<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        Semaphore slots = new Semaphore(concurrency);
        ExecutorService pool = Executors.newFixedThreadPool(concurrency, loadThreads());
        long start = System.nanoTime();
        long end = start + duration.toNanos();
        CpuMeter cpu = new CpuMeter(backendPid(db));
        Map<String, Duration> cpuBefore = cpu.read(ThroughputBenchmark::threadGroup);
        DbWork dbBefore = DbWork.read(db);
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
        // Every client done; the pool's threads live on until their CPU time is read.
        slots.tryAcquire(concurrency, 60, TimeUnit.SECONDS);
        double submitSeconds = (System.nanoTime() - start) / 1e9;
        out.printf("submitted %d in %.1f s; waiting for every accepted order to end...%n", sent.get(), submitSeconds);
        long waitUntil = System.nanoTime() + Duration.ofSeconds(120).toNanos();
        while (open(db, CUSTOMER) > 0 && System.nanoTime() < waitUntil) {
            Thread.sleep(200);
        }
        Map<String, Duration> cpuUsed = CpuMeter.between(cpuBefore, cpu.read(ThroughputBenchmark::threadGroup));
        Thread.sleep(1000); // PostgreSQL publishes its counters at most every 500 ms
        DbWork dbUsed = DbWork.read(db).minus(dbBefore);
        pool.shutdown();
        progress.interrupt();
        Map<String, Object> r = new LinkedHashMap<>();
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
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
            cpuPerOrder(r, cpuUsed, confirmed);
            dbUsed.perOrder(r, confirmed);
        }
        return r;
    }

    /**
     * What limits the run: CPU time per confirmed order in each process group, from submit to
     * CONFIRMED, and the orders/s the machine's cores would allow at that cost if nothing waited.
     */
    private static void cpuPerOrder(Map<String, Object> r, Map<String, Duration> used, long orders) {
        if (orders == 0) {
            return;
        }
        double total = 0;
        for (Map.Entry<String, Duration> e : used.entrySet()) {
            double ms = e.getValue().toNanos() / 1e6 / orders;
            r.put("cpu_ms_per_order_" + e.getKey(), round(ms));
            if (!e.getKey().startsWith("jvm_")) {
                total += ms;
            }
        }
        int cores = Runtime.getRuntime().availableProcessors();
        r.put("cores", cores);
        r.put("cpu_bound_orders_per_second", round(cores * 1000 / total));
    }

    /**
     * PostgreSQL's own counters for the database: transactions, rows written, WAL bytes. Unlike
     * times, they do not drift with the machine's speed, so they show a change in how much work an
     * order takes even when two runs' throughput cannot be told apart.
     */
    private record DbWork(long transactions, long rowsWritten, long walBytes) {
        static DbWork read(DataSource db) throws Exception {
            try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
                var rs = s.executeQuery("SELECT xact_commit + xact_rollback, tup_inserted + tup_updated + tup_deleted,"
                        + " pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint"
                        + " FROM pg_stat_database WHERE datname = current_database()");
                rs.next();
                return new DbWork(rs.getLong(1), rs.getLong(2), rs.getLong(3));
            }
        }

        DbWork minus(DbWork before) {
            return new DbWork(transactions - before.transactions, rowsWritten - before.rowsWritten,
                    walBytes - before.walBytes);
        }

        void perOrder(Map<String, Object> r, long orders) {
            if (orders > 0) {
                r.put("pg_transactions_per_order", round((double) transactions / orders));
                r.put("pg_rows_written_per_order", round((double) rowsWritten / orders));
                r.put("pg_wal_kb_per_order", round(walBytes / 1024.0 / orders));
            }
        }
    }

    private static ThreadFactory loadThreads() {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            Thread t = new Thread(task, LOAD_THREADS + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * The load generator's and the sandboxes' threads; null for the product's own (the load
     * generator's HTTP selector thread cannot be told apart and counts there).
     */
    private static String threadGroup(String name) {
        if (name.startsWith(LOAD_THREADS)) {
            return "load_generator";
        }
        return name.startsWith("inventory-sandbox") || name.startsWith("payment-sandbox") ? "sandboxes" : null;
    }

    private static long backendPid(DataSource db) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT pg_backend_pid()");
            rs.next();
            return rs.getLong(1);
        }
    }

    private Thread progress(AtomicInteger sent, Map<UUID, Boolean> accepted, DataSource db, long start) {
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

    private static long open(DataSource db, String customer) throws Exception {
        try (Connection c = db.getConnection(); PreparedStatement s = c.prepareStatement("SELECT count(*) FROM orders"
                + " WHERE customer_id = ? AND status IN ('PENDING_CONFIRMATION', 'AWAITING_PAYMENT', 'COMPENSATING')")) {
            s.setString(1, customer);
            var rs = s.executeQuery();
            rs.next();
            return rs.getLong(1);
        }
    }

    private static long confirmed(DataSource db) throws Exception {
        try (Connection c = db.getConnection(); Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT count(*) FROM orders WHERE customer_id = '" + CUSTOMER
                    + "' AND status = 'CONFIRMED'");
            rs.next();
            return rs.getLong(1);
        }
    }

    /** Saga-shaped transactions per second at the benchmark's concurrency: the machine's ceiling. */
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

    static Path results(String name) {
        return Path.of(System.getProperty("sagas.home", ".")).resolve("bench").resolve("results").resolve(name + ".json");
    }
}
