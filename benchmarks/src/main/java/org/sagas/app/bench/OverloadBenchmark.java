package org.sagas.app.bench;

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
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.sagas.app.Settings;
import org.sagas.app.bench.OpenLoop.Outcome;
import org.sagas.orchestrator.Json;
import org.sagas.testkit.ThreadCpu;

/**
 * {@code ./sagas bench overload}: what the product does past what the machine can carry. On a
 * freshly started product (cold), inventory healthy at 40 ms: first the capacity, found as the
 * orders/s that {@value #CLIENTS} closed-loop clients get accepted in {@value #CAPACITY_SECONDS} s;
 * then an open-loop stream from this process (never the product's) at each multiple of it in
 * {@link #MULTIPLES} for {@code duration} each, orders spread over {@value #CUSTOMERS} customers;
 * then {@value #RECOVERY_SECONDS} s at half the capacity, to see how soon answers are fast again.
 * The client runs at a higher CPU priority where it may ({@link ClientPriority}).
 * Once with every order on one hot SKU, once over {@value #SPREAD} SKUs, each on its own product.
 * Reports per phase: accepted, parked, shed (503) and failed answers, answer p50/p99 (accepted and
 * shed alike), confirmed orders/s of the phase's orders (goodput) and their confirm p99; writes a
 * JSON, a Markdown table and an SVG picture.
 */
final class OverloadBenchmark {
    static final double[] MULTIPLES = {0.5, 1, 2, 3};
    static final int CLIENTS = 16;
    static final int CAPACITY_SECONDS = 10;
    static final int RECOVERY_SECONDS = 10;
    static final int CUSTOMERS = 1_000;
    static final int SPREAD = 100;
    /** The client's CPU priority, where it may be raised ({@link ClientPriority}). */
    static final int CLIENT_NICE = -10;

    private final PrintStream out;
    private final Duration duration;

    OverloadBenchmark(PrintStream out, Duration duration) {
        this.out = out;
        this.duration = duration;
    }

    List<Map<String, Object>> run(Settings settings, Path resultFile) throws Exception {
        List<Map<String, Object>> runs = new ArrayList<>();
        try (BenchRig rig = BenchRig.start(settings, out)) {
            rig.put(rig.inventoryUrl() + "/_faults", "{\"latencyMs\":40,\"errorRate\":0.0,\"down\":false}");
            String run = UUID.randomUUID().toString().substring(0, 8);
            for (String layout : List.of("hot-sku", "spread-skus")) {
                List<String> skus = rig.stockedSkus("OVERLOAD-" + run + "-" + layout,
                        layout.equals("hot-sku") ? 1 : SPREAD, 100_000_000);
                runs.add(sweep(rig, layout, skus, run));
                rig.stopProduct();
            }
        }
        Files.createDirectories(resultFile.getParent());
        Files.writeString(resultFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(runs));
        Path svg = resultFile.resolveSibling(resultFile.getFileName().toString().replace(".json", ".svg"));
        Files.writeString(svg, OverloadChart.svg(runs));
        String table = table(runs);
        Files.writeString(resultFile.resolveSibling(resultFile.getFileName().toString().replace(".json", ".md")), table);
        out.println();
        out.print(table);
        out.println("written to " + resultFile + " and " + svg);
        return runs;
    }

    private Map<String, Object> sweep(BenchRig rig, String layout, List<String> skus, String run) throws Exception {
        out.printf("%n== %s: capacity, then %s x capacity for %d s each, then %d s at 0.5 x (cold start) ==%n",
                layout, java.util.Arrays.toString(MULTIPLES), duration.toSeconds(), RECOVERY_SECONDS);
        ClientPriority.set(0); // the product inherits the starting thread's priority: its own, as in production
        double toReady = rig.startProduct(Map.of());
        out.printf("  product ready after %.1f s%n", toReady);
        boolean clientRaised = ClientPriority.set(CLIENT_NICE);
        out.println(clientRaised ? "  client threads at nice " + CLIENT_NICE + ": not starved by the product it measures"
                : "  could not raise the client's priority (not root): its own waits for a core are in the figures");
        String prefix = "ov-" + run + "-" + layout + "-";
        double capacity = capacity(rig.ordersUri(), skus, prefix + "cap-");
        out.printf("  capacity: %.1f orders/s accepted by %d closed-loop clients%n", capacity, CLIENTS);
        List<Map<String, Object>> phases = new ArrayList<>();
        Map<String, Object> recovery;
        CpuMeter cpu = rig.cpuMeter();
        ThreadCpu threads = new ThreadCpu();
        try (OpenLoop client = new OpenLoop(rig.ordersUri())) {
            client.warm(rig.ordersUri().resolve("/health/live"), 2_000);
            for (double m : MULTIPLES) {
                int rate = (int) Math.max(1, Math.round(m * capacity));
                String customers = prefix + m + "-";
                out.printf("  %.1f x: %d orders/s for %d s ...%n", m, rate, duration.toSeconds());
                Map<Long, String> backends = new HashMap<>(rig.backendGroups());
                CpuMeter.Reading before = cpu.read();
                Map<String, Duration> threadsBefore = threads.read(rig.productPid());
                OpenLoop.Answers answers = client.run(rate, duration, customers, CUSTOMERS, skus);
                backends.putAll(rig.backendGroups());
                Map<String, Object> phase = phase(m, rate, answers);
                // Where the cores went meanwhile: the client's share is the benchmark's, not the product's.
                Map<String, Object> cores = new LinkedHashMap<>();
                CpuMeter.between(before, cpu.read(), backends).forEach((group, used) ->
                        cores.put(group, round3(used.toNanos() / 1e9 / duration.toSeconds())));
                phase.put("cores_by_process", cores);
                Map<String, Object> groups = new LinkedHashMap<>();
                ThreadCpu.between(threadsBefore, threads.read(rig.productPid())).forEach((group, used) ->
                        groups.put(group, round3(used.toNanos() / 1e9 / duration.toSeconds())));
                phase.put("product_cores_by_thread_group", groups);
                phase.put("customers_prefix", customers);
                phases.add(phase);
                out.println("    " + phase);
            }
            int rate = (int) Math.max(1, Math.round(capacity / 2));
            OpenLoop.Answers after = client.run(rate, Duration.ofSeconds(RECOVERY_SECONDS), prefix + "after-",
                    CUSTOMERS, skus);
            recovery = recovery(rate, after);
            out.println("  after the overload: " + recovery);
        }
        ClientPriority.set(0);
        double drain = awaitTerminal(rig, prefix);
        for (Map<String, Object> phase : phases) {
            confirmations(rig, (String) phase.remove("customers_prefix"), phase);
        }
        Map<String, Object> result = new LinkedHashMap<>();
        result.put("layout", layout);
        result.put("cold_start", true);
        result.put("client_nice", clientRaised ? CLIENT_NICE : 0);
        result.put("seconds_to_ready", round(toReady));
        result.put("capacity_orders_per_s", round(capacity));
        result.put("phase_seconds", duration.toSeconds());
        result.put("phases", phases);
        result.put("recovery", recovery);
        result.put("seconds_to_terminal_after_load", drain < 0 ? null : round(drain));
        double peak = phases.stream().mapToDouble(p -> ((Number) p.get("goodput_per_s")).doubleValue()).max().orElse(0);
        Map<String, Object> last = phases.get(phases.size() - 1);
        result.put("goodput_at_3x_of_peak", peak == 0 ? null : round(((Number) last.get("goodput_per_s"))
                .doubleValue() / peak));
        return result;
    }

    /** Orders/s accepted by {@value #CLIENTS} clients each sending the next order once answered. */
    private static double capacity(URI orders, List<String> skus, String customers) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(CAPACITY_SECONDS);
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS);
        try {
            List<Future<?>> clients = new ArrayList<>();
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                clients.add(pool.submit(() -> {
                    for (int i = 0; System.nanoTime() < end; i++) {
                        String body = "{\"customerId\":\"" + customers + ((client * 7919 + i) % CUSTOMERS)
                                + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + skus.get(i % skus.size())
                                + "\",\"quantity\":1,\"unitPriceCents\":500}]}";
                        try {
                            HttpResponse<String> r = http.send(HttpRequest.newBuilder(orders)
                                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                                    .header("Idempotency-Key", UUID.randomUUID().toString())
                                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                                    HttpResponse.BodyHandlers.ofString());
                            if (r.statusCode() == 202) {
                                accepted.incrementAndGet();
                            }
                        } catch (java.io.IOException e) {
                            failed.incrementAndGet(); // counted, not fatal: the next order goes on
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> f : clients) {
                f.get(CAPACITY_SECONDS + 60, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }
        if (failed.get() > 0) {
            System.out.println("  capacity phase: " + failed.get() + " orders failed without an answer");
        }
        return accepted.get() / (double) CAPACITY_SECONDS;
    }

    private Map<String, Object> phase(double multiple, int rate, OpenLoop.Answers a) {
        Map<String, Object> p = new LinkedHashMap<>();
        p.put("multiple", multiple);
        p.put("offered_per_s", rate);
        p.put("sent", a.all.count());
        p.put("accepted", a.count(Outcome.ACCEPTED));
        p.put("parked", a.count(Outcome.PARKED));
        p.put("shed_503", a.count(Outcome.SHED));
        p.put("failed", a.count(Outcome.FAILED));
        p.put("shed_rate", round3(a.count(Outcome.SHED) / (double) Math.max(1, a.all.count())));
        p.put("answer_p50_ms", round(a.all.percentileMillis(50)));
        p.put("answer_p99_ms", round(a.all.percentileMillis(99)));
        p.put("answer_max_ms", round(a.all.maxMillis()));
        p.put("shed_answer_p99_ms", a.shed.count() == 0 ? null : round(a.shed.percentileMillis(99)));
        p.put("answer_p99_ms_by_second", bySecond(a, (int) duration.toSeconds()));
        return p;
    }

    /** Answer p99 per second after the overload, and the first second from which every second's p99 is under 100 ms. */
    private static List<Double> bySecond(OpenLoop.Answers a, int seconds) {
        List<Double> p99s = new ArrayList<>();
        for (int s = 0; s < seconds; s++) {
            Latencies second = a.second(s);
            p99s.add(second.count() == 0 ? null : round(second.percentileMillis(99)));
        }
        return p99s;
    }

    private static Map<String, Object> recovery(int rate, OpenLoop.Answers a) {
        List<Double> p99s = bySecond(a, RECOVERY_SECONDS);
        Integer fast = null;
        for (int s = RECOVERY_SECONDS - 1; s >= 0; s--) {
            Double v = p99s.get(s);
            if (v == null || v >= 100) {
                break;
            }
            fast = s;
        }
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("offered_per_s", rate);
        r.put("parked", a.count(Outcome.PARKED));
        r.put("shed_503", a.count(Outcome.SHED));
        r.put("answer_p99_ms_by_second", p99s);
        r.put("seconds_until_p99_under_100_ms", fast);
        return r;
    }

    private static double awaitTerminal(BenchRig rig, String prefix) throws Exception {
        long start = System.nanoTime();
        while (System.nanoTime() - start < TimeUnit.SECONDS.toNanos(180)) {
            if (rig.monitor().count("SELECT count(*) FROM orders WHERE customer_id LIKE ?"
                    + " AND status NOT IN ('CONFIRMED', 'CANCELLED', 'REJECTED')", prefix + "%") == 0) {
                return (System.nanoTime() - start) / 1e9;
            }
            Thread.sleep(500);
        }
        return -1;
    }

    private void confirmations(BenchRig rig, String prefix, Map<String, Object> phase) throws Exception {
        try (PreparedStatement s = rig.productDb().prepareStatement("SELECT count(*),"
                + " percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM updated_at - created_at))"
                + " FROM orders WHERE customer_id LIKE ? AND status = 'CONFIRMED'")) {
            s.setString(1, prefix + "%");
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                phase.put("confirmed", rs.getLong(1));
                phase.put("goodput_per_s", round(rs.getLong(1) / (double) duration.toSeconds()));
                phase.put("confirm_p99_ms", round(rs.getDouble(2) * 1000));
            }
        }
    }

    static String table(List<Map<String, Object>> runs) {
        StringBuilder b = new StringBuilder();
        b.append("| layout | capacity/s | x | offered/s | accepted | parked | 503 | failed | answer p50 / p99 ms"
                + " | 503 p99 ms | goodput/s | confirm p99 ms |\n|---|---|---|---|---|---|---|---|---|---|---|---|\n");
        for (Map<String, Object> r : runs) {
            @SuppressWarnings("unchecked")
            List<Map<String, Object>> phases = (List<Map<String, Object>>) r.get("phases");
            for (Map<String, Object> p : phases) {
                b.append(String.format(Locale.ROOT, "| %s | %s | %s | %s | %s | %s | %s | %s | %s / %s | %s | %s | %s |%n",
                        r.get("layout"), r.get("capacity_orders_per_s"), p.get("multiple"), p.get("offered_per_s"),
                        p.get("accepted"), p.get("parked"), p.get("shed_503"), p.get("failed"), p.get("answer_p50_ms"),
                        p.get("answer_p99_ms"), p.get("shed_answer_p99_ms"), p.get("goodput_per_s"),
                        p.get("confirm_p99_ms")));
            }
            b.append(String.format(Locale.ROOT, "| %s | | after | %s | recovery: p99 < 100 ms from second %s;"
                    + " goodput at 3x = %s of peak | | | | | | | |%n", r.get("layout"),
                    ((Map<?, ?>) r.get("recovery")).get("offered_per_s"),
                    ((Map<?, ?>) r.get("recovery")).get("seconds_until_p99_under_100_ms"), r.get("goodput_at_3x_of_peak")));
        }
        return b.toString();
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static double round3(double v) {
        return Math.round(v * 1000) / 1000.0;
    }
}
