package org.sagas.peers.saga;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The sandbox services as the benchmark sees them, through their public API (their OpenAPI
 * documents, openapi-inventory.json and openapi-payment.json): stock set before a contender
 * runs, the provider's decline rate, and afterwards the check that
 * a contender's orders add up. Thread-safe.
 */
final class Ledger {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final URI inventory;
    private final URI payment;
    /** The sandbox's ledger token: its listings answer only with it. */
    private final String token;

    Ledger(URI inventory, URI payment, String token) {
        this.inventory = inventory;
        this.payment = payment;
        this.token = token;
    }

    void setStock(String sku, int available) throws IOException, InterruptedException {
        send("PUT", inventory.resolve("/stock/" + sku), "{\"available\":" + available + "}");
    }

    void setDeclineRate(double rate) throws IOException, InterruptedException {
        send("PUT", payment.resolve("/_faults"), "{\"declineRate\":" + rate + "}");
    }

    /**
     * What is wrong with a contender's orders (empty: nothing): every order final; at most one
     * captured charge per order, exactly one for a confirmed order, none left captured for a
     * cancelled, rejected or timed-out one; a confirmed order's stock still reserved, a cancelled or
     * timed-out one's released; and on each of its SKUs, available + reserved equal to what was set,
     * the reserved units those of its confirmed orders.
     */
    List<String> check(Map<String, String> finalStates, String skuPrefix, int skus, int stockPerSku)
            throws IOException, InterruptedException {
        List<String> problems = new ArrayList<>();
        Map<String, Integer> captured = new HashMap<>();
        for (JsonNode charge : get(payment.resolve("/charges"))) {
            if ("CAPTURED".equals(charge.path("status").asText())) {
                captured.merge(charge.path("orderId").asText(), 1, Integer::sum);
            }
        }
        Map<String, String> reservations = new HashMap<>();
        for (JsonNode r : get(inventory.resolve("/reservations"))) {
            reservations.put(r.path("orderId").asText(), r.path("status").asText());
        }
        int confirmed = 0;
        Map<String, Integer> wrong = new HashMap<>();
        for (Map.Entry<String, String> order : finalStates.entrySet()) {
            String state = order.getValue() == null ? "NOT_FINAL" : order.getValue();
            int charges = captured.getOrDefault(order.getKey(), 0);
            String reservation = reservations.getOrDefault(order.getKey(), "NONE");
            boolean right = switch (state) {
                case "CONFIRMED" -> charges == 1 && reservation.equals("RESERVED");
                case "CANCELLED", "TIMED_OUT" -> charges == 0 && !reservation.equals("RESERVED");
                case "REJECTED" -> charges == 0 && !reservation.equals("RESERVED");
                default -> false;
            };
            if (state.equals("CONFIRMED")) {
                confirmed++;
            }
            if (!right) {
                wrong.merge(state + " with " + charges + " captured charge(s), reservation " + reservation, 1,
                        Integer::sum);
            }
            if (charges > 1) {
                problems.add("order " + order.getKey() + " charged " + charges + " times");
            }
        }
        wrong.forEach((what, n) -> problems.add(n + " order(s) " + what));
        long reserved = 0;
        for (int i = 0; i < skus; i++) {
            JsonNode stock = get(inventory.resolve("/stock/" + skuPrefix + i));
            long held = stock.path("reserved").asLong();
            reserved += held;
            if (stock.path("available").asLong() + held != stockPerSku) {
                problems.add("SKU " + skuPrefix + i + ": available " + stock.path("available").asLong() + " + reserved "
                        + held + " != " + stockPerSku);
            }
        }
        if (reserved != confirmed) {
            problems.add("units reserved on its SKUs: " + reserved + ", confirmed orders: " + confirmed);
        }
        return problems;
    }

    private JsonNode get(URI uri) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .header("Authorization", "Bearer " + token).build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException("GET " + uri + " answered " + answer.statusCode() + ": " + answer.body());
        }
        return JSON.readTree(answer.body());
    }

    private void send(String method, URI uri, String body) throws IOException, InterruptedException {
        HttpResponse<String> answer = http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").method(method, HttpRequest.BodyPublishers.ofString(body))
                .build(), HttpResponse.BodyHandlers.ofString());
        if (answer.statusCode() != 200) {
            throw new IOException(method + " " + uri + " answered " + answer.statusCode() + ": " + answer.body());
        }
    }
}
