package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.http.Context;
import java.util.UUID;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.InvalidRequest;

/** Reading the operator API's requests: ids, limits, JSON bodies, reasons. Stateless. */
final class AdminRequests {
    static final int MAX_REASON = 1000;

    private AdminRequests() {}

    static UUID orderId(Context ctx) {
        return uuid(ctx.pathParam("orderId"), "orderId", "an order id (UUID)");
    }

    static UUID uuid(String value, String field, String what) {
        try {
            return UUID.fromString(value);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequest(field, "must be " + what + " (got '" + value + "')");
        }
    }

    static int limit(Context ctx, int byDefault, int max) {
        String param = ctx.queryParam("limit");
        return param == null ? byDefault : (int) FilterParams.number("limit", param, 1, max);
    }

    /** The JSON body; an empty body reads as an empty object. */
    static JsonNode body(Context ctx) {
        String text = ctx.body();
        if (text == null || text.isBlank()) {
            return Json.mapper().createObjectNode();
        }
        try {
            JsonNode node = Json.mapper().readTree(text);
            if (node == null || !node.isObject()) {
                throw new InvalidRequest("body", "must be a JSON object");
            }
            return node;
        } catch (java.io.IOException e) {
            throw new InvalidRequest("body", "is not JSON: " + e.getMessage());
        }
    }

    /** The body's {@code reason}: optional, at most {@value #MAX_REASON} characters. */
    static String reason(JsonNode body, boolean optional) {
        JsonNode r = body.get("reason");
        if (r == null || r.isNull()) {
            return null;
        }
        if (!r.isTextual()) {
            throw new InvalidRequest("reason", "must be a string");
        }
        String text = r.asText().strip();
        if (text.length() > MAX_REASON) {
            throw new InvalidRequest("reason", "must be at most " + MAX_REASON + " characters");
        }
        return text.isEmpty() ? null : text;
    }

    /** Fields a body may have; anything else is refused, so a typo does not pass silently. */
    static void onlyFields(JsonNode body, String... allowed) {
        java.util.List<String> names = java.util.List.of(allowed);
        for (var it = body.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!names.contains(f)) {
                throw new InvalidRequest(f, "unknown field; expected " + String.join(", ", names));
            }
        }
    }
}
