package org.sagas.peers.saga.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;

/**
 * The sandbox inventory and payment provider over HTTP, called by the peers exactly as the product
 * calls them: the same paths, the same idempotency keys ({@code <orderId>:reserve},
 * {@code <orderId>:release}, {@code <orderId>:charge}), HTTP/1.1, no retries of its own (a peer's
 * engine retries, where it does). Thread-safe.
 */
public final class SandboxClient {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration TIMEOUT = Duration.ofSeconds(2);

    private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .connectTimeout(TIMEOUT).build();
    private final URI inventory;
    private final URI payment;

    public SandboxClient(URI inventory, URI payment) {
        this.inventory = inventory;
        this.payment = payment;
    }

    /** Reserves every line or none; true when the stock is held, false when it is not (out of stock). */
    public boolean reserve(OrderRequest order) {
        ObjectNode body = JSON.createObjectNode().put("orderId", order.orderId());
        ArrayNode lines = body.putArray("lines");
        order.lines().forEach(l -> lines.addObject().put("sku", l.sku()).put("quantity", l.quantity()));
        HttpRequest.Builder request = post(inventory.resolve("/reservations"), order.reserveKey(), body);
        if (order.deadlineEpochMillis() > 0) {
            request.header("X-Deadline", Long.toString(order.deadlineEpochMillis()));
        }
        String status = call(request, 200).path("status").asText();
        return switch (status) {
            case "RESERVED" -> true;
            // A reservation that arrived after its own release holds nothing: as good as out of stock.
            case "OUT_OF_STOCK", "RELEASED" -> false;
            default -> throw new SandboxFailure("inventory answered an unknown status " + status);
        };
    }

    /** Returns the order's stock once; releasing what was never reserved leaves a tombstone. */
    public void release(OrderRequest order) {
        ObjectNode body = JSON.createObjectNode().put("orderId", order.orderId());
        call(post(inventory.resolve("/reservations/" + order.reserveKey() + "/release"), order.releaseKey(), body),
                200);
    }

    /** Charges the order's total under its charge key; the same key never charges twice. */
    public PaymentOutcome charge(OrderRequest order) {
        ObjectNode body = JSON.createObjectNode().put("orderId", order.orderId())
                .put("amountCents", order.amountCents()).put("currency", order.currency());
        String status = call(post(payment.resolve("/charges"), order.chargeKey(), body), 200).path("status").asText();
        return switch (status) {
            case "CAPTURED" -> PaymentOutcome.CAPTURED;
            case "DECLINED" -> PaymentOutcome.DECLINED;
            default -> throw new SandboxFailure("payment provider answered an unknown status " + status);
        };
    }

    /** Refunds the order's charge if one was captured; a charge that was never made has nothing to refund. */
    public void refund(OrderRequest order) {
        ObjectNode body = JSON.createObjectNode().put("chargeKey", order.chargeKey());
        call(post(payment.resolve("/refunds"), order.refundKey(), body), 200, 404);
    }

    private static HttpRequest.Builder post(URI uri, String idempotencyKey, JsonNode body) {
        return HttpRequest.newBuilder(uri).timeout(TIMEOUT).header("Content-Type", "application/json")
                .header("Idempotency-Key", idempotencyKey).POST(HttpRequest.BodyPublishers.ofString(body.toString()));
    }

    private JsonNode call(HttpRequest.Builder request, int... expected) {
        HttpRequest built = request.build();
        HttpResponse<String> answer;
        try {
            answer = http.send(built, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new SandboxFailure(built.method() + " " + built.uri() + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SandboxFailure(built.method() + " " + built.uri() + " interrupted", e);
        }
        for (int status : expected) {
            if (answer.statusCode() == status) {
                try {
                    return status == 404 ? JSON.createObjectNode() : JSON.readTree(answer.body());
                } catch (IOException e) {
                    throw new SandboxFailure(built.uri() + " answered no JSON: " + answer.body(), e);
                }
            }
        }
        throw new SandboxFailure(built.method() + " " + built.uri() + " answered " + answer.statusCode() + ": "
                + answer.body());
    }
}
