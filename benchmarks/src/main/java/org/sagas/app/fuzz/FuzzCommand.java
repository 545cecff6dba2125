package org.sagas.app.fuzz;

import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.LongSupplier;
import org.sagas.testkit.fuzz.Choices;
import org.sagas.testkit.fuzz.FuzzClient;
import org.sagas.testkit.fuzz.HostileRequest;
import org.sagas.testkit.fuzz.HostileRequests;

/**
 * {@code ./sagas fuzz --seconds N}: throws hostile requests ({@link HostileRequests}) at the
 * orders API for N seconds and checks each was refused with a {@code 4xx}, that the service
 * still answers and takes a valid order every 100 requests and at the end, and that nothing was
 * stored. Prints a table of statuses by kind and every failure; exit code 1 if any.
 */
public final class FuzzCommand {
    private final URI api;
    private final String authorization;
    private final LongSupplier storedOrders;
    private final PrintStream out;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private int healthChecks;

    /**
     * @param storedOrders how many orders the product holds, or null when it cannot be read (a
     *     product elsewhere: then orders of the fuzz customer are looked for through the API)
     */
    public FuzzCommand(URI api, String apiKey, LongSupplier storedOrders, PrintStream out) {
        this.api = api;
        this.authorization = apiKey == null ? null : "Bearer " + apiKey;
        this.storedOrders = storedOrders;
        this.out = out;
    }

    /** Runs for {@code seconds}; returns the number of failures. */
    public int run(long seconds, long seed) {
        Random random = new Random(seed);
        Choices choices = Choices.random(random);
        long before = storedOrders == null ? 0 : storedOrders.getAsLong();
        Map<String, Map<Integer, Integer>> table = new TreeMap<>();
        List<String> failures = new ArrayList<>();
        long end = System.nanoTime() + Duration.ofSeconds(seconds).toNanos();
        out.printf("fuzzing %s for %d s, seed %d%n", api, seconds, seed);
        int sent = 0;
        while (System.nanoTime() < end) {
            HostileRequest request = HostileRequests.next(choices, authorization);
            FuzzClient.Outcome outcome = FuzzClient.send(api.getHost(), api.getPort(), request, Duration.ofSeconds(10));
            sent++;
            String kind = request.kind().replaceAll(" [0-9].*", "");
            table.computeIfAbsent(kind, k -> new TreeMap<>()).merge(outcome.status(), 1, Integer::sum);
            if (!outcome.refusedProperly()) {
                failures.add(outcome.status() + " " + (outcome.failure() == null ? "" : outcome.failure() + " ")
                        + request);
            }
            if (sent % 100 == 0) {
                healthy(failures);
            }
        }
        healthy(failures);
        if (storedOrders != null) {
            long stored = storedOrders.getAsLong() - before - healthChecks;
            if (stored != 0) {
                failures.add(stored + " orders stored besides the health checks' valid ones");
            }
        } else {
            fuzzOrdersVisible(failures);
        }
        out.printf("%d hostile requests%n", sent);
        table.forEach((kind, statuses) -> out.printf("  %-36s %s%n", kind, statuses));
        failures.stream().limit(50).forEach(f -> out.println("FAILED " + f));
        out.printf("%d failed%n", failures.size());
        return failures.size();
    }

    /** The service answers, is live, and takes a valid order (which the stored-orders count allows for). */
    private void healthy(List<String> failures) {
        try {
            HttpResponse<String> live = http.send(HttpRequest.newBuilder(api.resolve("/health/live"))
                    .timeout(Duration.ofSeconds(10)).GET().build(), HttpResponse.BodyHandlers.ofString());
            HttpRequest.Builder order = HttpRequest.newBuilder(api.resolve("/orders")).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json").header("Idempotency-Key", "fuzz-ok-" + UUID.randomUUID())
                    .POST(HttpRequest.BodyPublishers.ofString("{\"customerId\":\"fuzz-health\",\"currency\":\"EUR\","
                            + "\"lines\":[{\"sku\":\"SKU-FUZZ-HEALTH\",\"quantity\":1,\"unitPriceCents\":1}]}"));
            if (authorization != null) {
                order.header("Authorization", authorization);
            }
            HttpResponse<String> valid = http.send(order.build(), HttpResponse.BodyHandlers.ofString());
            healthChecks++;
            if (live.statusCode() != 200 || (valid.statusCode() != 202 && valid.statusCode() != 422)) {
                failures.add("unhealthy: /health/live " + live.statusCode() + ", a valid order " + valid.statusCode()
                        + " " + valid.body());
            }
        } catch (Exception e) {
            failures.add("unhealthy: " + e);
        }
    }

    private void fuzzOrdersVisible(List<String> failures) {
        try {
            HttpRequest.Builder list = HttpRequest.newBuilder(api.resolve("/orders?limit=1000"))
                    .timeout(Duration.ofSeconds(10)).GET();
            if (authorization != null) {
                list.header("Authorization", authorization);
            }
            String body = http.send(list.build(), HttpResponse.BodyHandlers.ofString()).body();
            if (body.contains("\"customerId\":\"fuzz\"")) {
                failures.add("an order of the fuzz customer was stored");
            }
        } catch (Exception e) {
            failures.add("cannot list orders: " + e);
        }
    }
}
