package org.sagas.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.sagas.orchestrator.ordering.Limits;

/**
 * The body of {@code POST /reservations}: {@code {"orderId","lines":[{"sku","quantity"}]}}.
 * Lines naming the same SKU are summed, and lines are sorted by SKU, so that every transaction
 * takes stock rows in the same order and concurrent reservations cannot deadlock.
 */
record ReserveRequest(String orderId, List<Reservation.Line> lines) {
    // The orchestrator's limits, so that every order its API accepts can be reserved here.
    static final int MAX_ORDER_ID_LENGTH = Limits.MAX_ORDER_ID;
    static final int MAX_SKU_LENGTH = Limits.MAX_SKU;
    static final int MAX_LINES = Limits.MAX_LINES;
    static final int MAX_QUANTITY = Limits.MAX_QUANTITY;

    ReserveRequest {
        lines = List.copyOf(lines);
    }

    static ReserveRequest parse(JsonNode body) {
        String orderId = orderId(body);
        JsonNode lines = Json.required(body, "lines", "lines");
        if (!lines.isArray() || lines.isEmpty()) {
            throw Problem.invalid("lines", "must be a non-empty array");
        }
        if (lines.size() > MAX_LINES) {
            throw Problem.invalid("lines", "must have at most " + MAX_LINES + " lines");
        }
        Map<String, Integer> bySku = new TreeMap<>();
        for (int i = 0; i < lines.size(); i++) {
            String path = "lines[" + i + "]";
            JsonNode line = lines.get(i);
            if (!line.isObject()) {
                throw Problem.invalid(path, "must be an object");
            }
            String sku = Json.text(Json.required(line, "sku", path + ".sku"), path + ".sku", MAX_SKU_LENGTH);
            int quantity = (int) Json.integer(Json.required(line, "quantity", path + ".quantity"),
                    path + ".quantity", Limits.MIN_QUANTITY, MAX_QUANTITY);
            bySku.merge(sku, quantity, Integer::sum);
        }
        List<Reservation.Line> merged = new ArrayList<>();
        bySku.forEach((sku, quantity) -> merged.add(new Reservation.Line(sku, quantity)));
        return new ReserveRequest(orderId, merged);
    }

    /** The required {@code orderId} member of a reserve or release body. */
    static String orderId(JsonNode body) {
        return Json.text(Json.required(body, "orderId", "orderId"), "orderId", MAX_ORDER_ID_LENGTH);
    }
}
