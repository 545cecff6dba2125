package org.sagas.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BiFunction;

/** Submits orders like clients do, one or many at once, timing each answer. */
final class Submissions {
    private Submissions() {}

    /** An answer to {@code POST /orders} and how long the client waited for it. */
    record Answer(String key, HttpResponse<String> response, Duration took) {
        int status() {
            return response.statusCode();
        }

        /** The order the answer names, or null (a 503 names none). */
        UUID orderId() {
            JsonNode id = TestProduct.read(response.body()).get("orderId");
            return id == null ? null : UUID.fromString(id.asText());
        }

        /** The order status in a 202 body. */
        String orderStatus() {
            return TestProduct.read(response.body()).path("status").asText();
        }

        @Override
        public String toString() {
            return status() + " after " + took.toMillis() + " ms: " + response.body();
        }
    }

    /** One submission under a fresh key, timed. */
    static Answer one(BiFunction<String, String, HttpResponse<String>> how, String body) {
        String key = key();
        long start = System.nanoTime();
        HttpResponse<String> response = how.apply(key, body);
        return new Answer(key, response, Duration.ofNanos(System.nanoTime() - start));
    }

    /** Submits {@code bodies} from {@code clients} threads at once; the answers in the order of the bodies. */
    static List<Answer> concurrently(int clients, List<String> bodies,
            BiFunction<String, String, HttpResponse<String>> how) {
        ExecutorService pool = Executors.newFixedThreadPool(clients);
        try {
            List<Future<Answer>> futures = new ArrayList<>();
            for (String body : bodies) {
                futures.add(pool.submit(() -> one(how, body)));
            }
            List<Answer> answers = new ArrayList<>();
            for (Future<Answer> f : futures) {
                answers.add(f.get(60, TimeUnit.SECONDS));
            }
            return answers;
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("a submission failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        } finally {
            pool.shutdownNow();
        }
    }

    /**
     * As {@link #concurrently}, each client honouring a {@code 503} that names no order (admission's
     * "overloaded": nothing was stored) as a client should: again under the same key after its
     * {@code Retry-After}, at most {@code retries} times. For tests whose subject is not admission,
     * on a machine other test JVMs share.
     */
    static List<Answer> concurrentlyRetryingOverload(int clients, List<String> bodies,
            BiFunction<String, String, HttpResponse<String>> how, int retries) {
        return concurrently(clients, bodies, (key, body) -> {
            HttpResponse<String> response = how.apply(key, body);
            for (int i = 0; i < retries && response.statusCode() == 503
                    && !TestProduct.read(response.body()).has("orderId"); i++) {
                long seconds = response.headers().firstValueAsLong("Retry-After").orElse(1);
                try {
                    Thread.sleep(Duration.ofSeconds(seconds).toMillis());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return response;
                }
                response = how.apply(key, body);
            }
            return response;
        });
    }

    static String key() {
        return "key-" + UUID.randomUUID();
    }

    static String sku() {
        return "SKU-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static List<UUID> ids(List<Answer> answers) {
        return answers.stream().map(Answer::orderId).toList();
    }
}
