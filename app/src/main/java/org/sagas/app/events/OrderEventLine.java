package org.sagas.app.events;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Locale;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;

/**
 * One record of {@code orders.events} as one line for a person (docs/events.md): when, what, which
 * order, and what the message says that matters, each type its own way; a body that is not JSON is
 * shown as such. Stateless.
 */
public final class OrderEventLine {
    private OrderEventLine() {}

    public static String format(ConsumerRecord<String, byte[]> record) {
        String type = header(record, Topics.MESSAGE_TYPE);
        String when = record.timestamp() >= 0 ? Instant.ofEpochMilli(record.timestamp()).toString() : "-";
        JsonNode body;
        try {
            body = record.value() == null ? null : Json.mapper().readTree(record.value());
        } catch (java.io.IOException e) {
            body = null;
        }
        String what = body == null || !body.isObject() ? "(body is not a JSON object)" : describe(type, body);
        return String.format(Locale.ROOT, "%-24s %-21s %-36s %s", when, type == null ? "?" : type,
                record.key() == null ? "-" : record.key(), what);
    }

    private static String describe(String type, JsonNode b) {
        if (type == null) {
            return Json.write(b);
        }
        switch (type) {
            case "OrderStatusChanged":
                return String.format(Locale.ROOT, "%-20s v%-3s %-22s %s %s  customer %s", b.path("status").asText(),
                        b.path("sagaVersion").asText(), b.path("reason").asText(), money(b.path("totalCents")),
                        b.path("currency").asText(), b.path("customerId").asText());
            case "OrderCommandAccepted":
                return b.path("command").asText() + " accepted: " + b.path("status").asText()
                        + (b.path("replayed").asBoolean() ? " (replayed)" : "") + "  order " + b.path("orderId").asText()
                        + "  reference " + b.path("clientReference").asText();
            case "OrderCommandRefused":
                return b.path("command").asText() + " refused: " + b.path("type").asText() + " ("
                        + b.path("httpStatus").asText() + ") " + b.path("detail").asText() + "  reference "
                        + b.path("clientReference").asText();
            default:
                return Json.write(b);
        }
    }

    private static String money(JsonNode cents) {
        if (!cents.canConvertToLong()) {
            return "?";
        }
        long c = cents.asLong();
        return String.format(Locale.ROOT, "%d.%02d", c / 100, Math.abs(c % 100));
    }

    static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
