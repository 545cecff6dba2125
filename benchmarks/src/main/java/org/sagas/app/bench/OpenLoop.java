package org.sagas.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.sagas.orchestrator.Json;

/**
 * An open-loop load client: orders sent at a steady rate whatever the answers, spread over a
 * number of customers as shops' traffic is, each answer classified and timed. Runs in the
 * benchmark's process, never the product's. Thread-safe per run; one {@link HttpClient} for all.
 */
public final class OpenLoop implements AutoCloseable {

    /** What one answer was. */
    public enum Outcome { ACCEPTED, PARKED, SHED, FAILED }

    /** The answers of one stream of orders. */
    public static final class Answers {
        private final Map<Outcome, AtomicInteger> counts = new ConcurrentHashMap<>();
        /** Every answer's time, and per second of the stream (by when the order was sent). */
        public final Latencies all = new Latencies();
        public final Latencies shed = new Latencies();
        private final Map<Integer, Latencies> bySecond = new ConcurrentHashMap<>();

        public int count(Outcome outcome) {
            AtomicInteger n = counts.get(outcome);
            return n == null ? 0 : n.get();
        }

        /** Answer times of the orders sent in second {@code s} of the stream (0 first). */
        public Latencies second(int s) {
            return bySecond.computeIfAbsent(s, k -> new Latencies());
        }

        void add(Outcome outcome, int second, long micros) {
            counts.computeIfAbsent(outcome, k -> new AtomicInteger()).incrementAndGet();
            all.add(micros);
            second(second).add(micros);
            if (outcome == Outcome.SHED) {
                shed.add(micros);
            }
        }
    }

    private final ExecutorService executor = Executors.newFixedThreadPool(8);
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).executor(executor)
            .build();
    private final URI orders;

    public OpenLoop(URI orders) {
        this.orders = orders;
    }

    /**
     * Warms this client, not the product: {@code count} {@code GET}s of {@code uri}, a few at a
     * time, so the first second of a stream does not measure the client's own cold start (its
     * threads, connections and classes).
     */
    public void warm(URI uri, int count) throws Exception {
        List<CompletableFuture<HttpResponse<Void>>> sent = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            sent.add(http.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).GET().build(),
                    HttpResponse.BodyHandlers.discarding()));
            if (sent.size() == 16) {
                CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
                sent.clear();
            }
        }
        CompletableFuture.allOf(sent.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
    }

    /**
     * Sends {@code rate} orders a second for {@code duration}, order {@code i} for customer
     * {@code customerPrefix + (i % customers)} and SKU {@code skus[i % skus.size()]}, then waits
     * for every answer (30 s at most each).
     */
    public Answers run(int rate, Duration duration, String customerPrefix, int customers, List<String> skus)
            throws Exception {
        Answers answers = new Answers();
        List<CompletableFuture<Void>> inFlight = new ArrayList<>();
        long total = rate * duration.toSeconds();
        long start = System.nanoTime();
        for (long i = 0; i < total; i++) {
            long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            int second = (int) (i / rate);
            long t0 = System.nanoTime();
            HttpRequest request = HttpRequest.newBuilder(orders).timeout(Duration.ofSeconds(30))
                    .header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString())
                    .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"" + customerPrefix + (i % customers)
                            + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + skus.get((int) (i % skus.size()))
                            + "\",\"quantity\":1,\"unitPriceCents\":500}]}")).build();
            inFlight.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).handle((r, e) -> {
                answers.add(classify(r, e), second, (System.nanoTime() - t0) / 1000);
                return null;
            }));
        }
        CompletableFuture.allOf(inFlight.toArray(CompletableFuture[]::new)).get(60, TimeUnit.SECONDS);
        return answers;
    }

    private static Outcome classify(HttpResponse<String> r, Throwable e) {
        if (e != null || r == null) {
            return Outcome.FAILED;
        }
        if (r.statusCode() == 503) {
            return Outcome.SHED;
        }
        if (r.statusCode() != 202) {
            return Outcome.FAILED;
        }
        try {
            JsonNode body = Json.mapper().readTree(r.body());
            return "PENDING_CONFIRMATION".equals(body.path("status").asText()) ? Outcome.PARKED : Outcome.ACCEPTED;
        } catch (Exception ex) {
            return Outcome.FAILED;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
