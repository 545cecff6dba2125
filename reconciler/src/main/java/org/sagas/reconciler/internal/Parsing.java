package org.sagas.reconciler.internal;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * Reads the topology's input records into {@link Observation}s: empty for a message type the
 * reconciliation does not use. Stateless.
 *
 * @throws IllegalArgumentException for a record that cannot be read (the caller logs and skips it)
 */
final class Parsing {
    private Parsing() {}

    static Optional<Observation> orderEvent(String key, Headers headers, byte[] value) {
        String type = header(headers, Topics.MESSAGE_TYPE);
        String id = header(headers, Topics.MESSAGE_ID);
        if (type == null) {
            throw new IllegalArgumentException("no message-type header");
        }
        JsonNode body = body(value);
        switch (type) {
            case OrderMessages.ORDER_STATUS_CHANGED:
                return Optional.of(new Observation.StatusSeen(orderId(key, body), id, OrderStatus.ofLabel(text(body, "status")),
                        body.path("sagaVersion").asInt(0), body.path("totalCents").asLong(-1),
                        body.path("currency").asText(null)));
            // The end-of-order events alone (orders from before OrderStatusChanged existed).
            case OrderMessages.ORDER_CONFIRMED:
                return Optional.of(new Observation.StatusSeen(orderId(key, body), id, OrderStatus.CONFIRMED, 0,
                        body.path("totalCents").asLong(-1), body.path("currency").asText(null)));
            case OrderMessages.ORDER_CANCELLED:
                return Optional.of(new Observation.StatusSeen(orderId(key, body), id, OrderStatus.CANCELLED, 0, -1, null));
            case OrderMessages.ORDER_REJECTED:
                return Optional.of(new Observation.StatusSeen(orderId(key, body), id, OrderStatus.REJECTED, 0, -1, null));
            default:
                return Optional.empty();
        }
    }

    static Optional<Observation> paymentCommand(String key, Headers headers, byte[] value) {
        if (!OrderMessages.CHARGE_PAYMENT.equals(header(headers, Topics.MESSAGE_TYPE))) {
            return Optional.empty();
        }
        JsonNode body = body(value);
        return Optional.of(new Observation.ChargeCommanded(orderId(key, body), header(headers, Topics.MESSAGE_ID),
                text(body, "idempotencyKey"), body.path("amountCents").asLong(-1), body.path("currency").asText(null)));
    }

    static Optional<Observation> paymentReply(String key, Headers headers, byte[] value) {
        String type = header(headers, Topics.MESSAGE_TYPE);
        if (!OrderMessages.PAYMENT_CAPTURED.equals(type) && !OrderMessages.PAYMENT_DECLINED.equals(type)) {
            return Optional.empty();
        }
        return Optional.of(new Observation.PaymentReplied(orderId(key, body(value)), header(headers,
                Topics.MESSAGE_ID), type));
    }

    static Optional<Observation> ledgerCharge(byte[] value) {
        JsonNode body = body(value);
        cursor(body);
        return Optional.of(new Observation.LedgerCharge(text(body, "orderId"), null, text(body, "idempotencyKey"),
                body.path("amountCents").asLong(-1), body.path("currency").asText(null), text(body, "status"),
                text(body, "cursor")));
    }

    static Optional<Observation> ledgerReservation(byte[] value) {
        JsonNode body = body(value);
        cursor(body);
        return Optional.of(new Observation.LedgerReservation(text(body, "orderId"), null, text(body, "key"),
                text(body, "status"), text(body, "cursor")));
    }

    private static void cursor(JsonNode body) {
        String cursor = text(body, "cursor");
        Cursors.compare(cursor, cursor);
    }

    private static String orderId(String key, JsonNode body) {
        String fromBody = body.path("orderId").asText(null);
        if (fromBody != null) {
            return fromBody;
        }
        if (key == null) {
            throw new IllegalArgumentException("no order id in key or body");
        }
        return key;
    }

    private static JsonNode body(byte[] value) {
        if (value == null) {
            throw new IllegalArgumentException("empty body");
        }
        try {
            JsonNode node = Json.mapper().readTree(value);
            if (node == null || !node.isObject()) {
                throw new IllegalArgumentException("body is not a JSON object");
            }
            return node;
        } catch (IOException e) {
            throw new IllegalArgumentException("body is not JSON: " + e.getMessage(), e);
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || !v.isTextual() || v.asText().isEmpty()) {
            throw new IllegalArgumentException("field " + field + " missing or not a string");
        }
        return v.asText();
    }

    private static String header(Headers headers, String name) {
        Header h = headers.lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
