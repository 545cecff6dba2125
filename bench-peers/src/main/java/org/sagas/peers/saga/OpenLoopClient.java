package org.sagas.peers.saga;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintStream;
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
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.sagas.peers.saga.peer.PaymentWorker;

/**
 * The same open-loop client for every contender: {@code POST /orders} at a fixed rate whatever the
 * answers (order {@code i} is due at {@code start + i / rate}, and its latency counts from then),
 * the product's request ({@code Idempotency-Key}, {@code X-Deadline} 2 s ahead as the product's
 * throughput benchmark sends it, unless {@code -Dpeers.deadline.ms} says otherwise, one line of one
 * unit at 9.90 EUR, SKUs in turn). Its threads are named {@code client-} so that their CPU is
 * measured apart. At most {@value #MAX_IN_FLIGHT} requests wait at once; an order due beyond that
 * is not sent and counted. Not thread-safe: one run at a time.
 */
final class OpenLoopClient implements AutoCloseable {
    static final String THREADS = "client-";
    private static final int MAX_IN_FLIGHT = 2000;
    /** How far ahead of sending each order's {@code X-Deadline} lies ({@code -Dpeers.deadline.ms}). */
    static final long DEADLINE_MS = Long.getLong("peers.deadline.ms", 2000);
    private static final ObjectMapper JSON = new ObjectMapper();

    private final ExecutorService executor = Executors.newFixedThreadPool(4, PaymentWorker.named(THREADS));
    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(Duration.ofSeconds(2)).executor(executor).build();

    /** A run's orders: {@code customer} tells phases apart; {@code headers} are added to each request. */
    record Load(URI api, String customer, double rate, Duration duration, String skuPrefix, int skus,
            Map<String, String> headers) {}

    List<Submission> run(Load load, PrintStream out) throws InterruptedException {
        int count = (int) Math.round(load.rate() * load.duration().toMillis() / 1000.0);
        List<CompletableFuture<Submission>> sent = new ArrayList<>(count);
        AtomicInteger inFlight = new AtomicInteger();
        AtomicInteger answered = new AtomicInteger();
        long periodNanos = (long) (1e9 / load.rate());
        long start = System.nanoTime();
        long startEpoch = System.currentTimeMillis();
        long nextReport = start + TimeUnit.SECONDS.toNanos(1);
        for (int i = 0; i < count; i++) {
            long due = start + i * periodNanos;
            LockSupport.parkNanos(due - System.nanoTime());
            long dueEpoch = startEpoch + (due - start) / 1_000_000;
            if (inFlight.get() >= MAX_IN_FLIGHT) {
                sent.add(CompletableFuture.completedFuture(new Submission(dueEpoch, 0, -2, null)));
                continue;
            }
            inFlight.incrementAndGet();
            sent.add(http.sendAsync(request(load, i), HttpResponse.BodyHandlers.ofString())
                    .handle((answer, error) -> {
                        long micros = (System.nanoTime() - due) / 1000;
                        inFlight.decrementAndGet();
                        answered.incrementAndGet();
                        return error != null ? new Submission(dueEpoch, micros, -1, null)
                                : new Submission(dueEpoch, micros, answer.statusCode(), orderId(answer));
                    }));
            if (System.nanoTime() >= nextReport) {
                out.printf("    %3.0f s  sent %6d  answered %6d  in flight %5d%n", (System.nanoTime() - start) / 1e9,
                        i + 1, answered.get(), inFlight.get());
                nextReport += TimeUnit.SECONDS.toNanos(1);
            }
        }
        List<Submission> done = new ArrayList<>(count);
        for (CompletableFuture<Submission> f : sent) {
            try {
                done.add(f.get(30, TimeUnit.SECONDS));
            } catch (Exception e) {
                done.add(new Submission(0, 0, -1, null));
            }
        }
        return done;
    }

    /**
     * The closed-loop variant: {@code clients} senders, each sending its next order as soon as the
     * last one is answered, for {@code load.duration()} ({@code load.rate()} is not used). An
     * order's latency counts from when it was sent.
     */
    List<Submission> runClosed(Load load, int clients, PrintStream out) throws InterruptedException {
        List<Submission> done = java.util.Collections.synchronizedList(new ArrayList<>());
        AtomicInteger next = new AtomicInteger();
        long until = System.nanoTime() + load.duration().toNanos();
        List<Thread> senders = new ArrayList<>();
        for (int c = 0; c < clients; c++) {
            Thread sender = new Thread(() -> {
                while (System.nanoTime() < until) {
                    long sentEpoch = System.currentTimeMillis();
                    long sent = System.nanoTime();
                    Submission s;
                    try {
                        HttpResponse<String> answer = http.send(request(load, next.getAndIncrement()),
                                HttpResponse.BodyHandlers.ofString());
                        s = new Submission(sentEpoch, (System.nanoTime() - sent) / 1000, answer.statusCode(),
                                orderId(answer));
                    } catch (java.io.IOException e) {
                        s = new Submission(sentEpoch, (System.nanoTime() - sent) / 1000, -1, null);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        return;
                    }
                    done.add(s);
                }
            }, THREADS + "closed-" + c);
            senders.add(sender);
            sender.start();
        }
        long start = System.nanoTime();
        while (System.nanoTime() < until) {
            Thread.sleep(1000); // progress lines only; the senders pace themselves
            out.printf("    %3.0f s  answered %6d%n", (System.nanoTime() - start) / 1e9, done.size());
        }
        for (Thread sender : senders) {
            sender.join(30_000);
        }
        return new ArrayList<>(done);
    }

    private static HttpRequest request(Load load, int i) {
        String body = "{\"customerId\":\"" + load.customer() + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\""
                + load.skuPrefix() + (i % load.skus()) + "\",\"quantity\":1,\"unitPriceCents\":990}]}";
        HttpRequest.Builder request = HttpRequest.newBuilder(load.api()).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("Idempotency-Key", UUID.randomUUID().toString())
                .header("X-Deadline", Long.toString(System.currentTimeMillis() + DEADLINE_MS))
                .POST(HttpRequest.BodyPublishers.ofString(body));
        load.headers().forEach(request::header);
        return request.build();
    }

    private static String orderId(HttpResponse<String> answer) {
        if (answer.statusCode() != 202 && answer.statusCode() != 422) {
            return null;
        }
        try {
            return JSON.readTree(answer.body()).path("orderId").asText(null);
        } catch (Exception e) {
            return null;
        }
    }

    @Override
    public void close() {
        executor.shutdownNow();
    }
}
