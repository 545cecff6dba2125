package org.sagas.orchestrator.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import org.sagas.orchestrator.ordering.Limits;
import org.sagas.orchestrator.ordering.OrderLine;
import org.sagas.orchestrator.ordering.OrderRequest;

/**
 * Reads and validates a {@code POST /orders} body strictly: exact JSON types, no unknown fields,
 * every limit of the contract, as {@link Limits} defines them for the participants too. Each failure
 * names its field. Stateless and thread-safe.
 */
public final class OrderRequestParser {
    private static final ObjectMapper STRICT = org.sagas.orchestrator.Json.strict();
    private static final Set<String> ORDER_FIELDS = Set.of("customerId", "currency", "lines");
    private static final Set<String> LINE_FIELDS = Set.of("sku", "quantity", "unitPriceCents");
    static final int MAX_LINES = Limits.MAX_LINES;
    static final int MAX_QUANTITY = Limits.MAX_QUANTITY;
    static final long MAX_UNIT_PRICE = Limits.MAX_UNIT_PRICE_CENTS;

    private OrderRequestParser() {}

    /** @throws InvalidRequest naming the first field that is wrong */
    public static OrderRequest parse(byte[] body) {
        JsonNode root;
        try {
            root = STRICT.readTree(body);
        } catch (JsonProcessingException e) {
            throw new InvalidRequest("body", "malformed JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new InvalidRequest("body", "unreadable body: " + e.getMessage());
        }
        if (root == null || !root.isObject()) {
            throw new InvalidRequest("body", "must be a JSON object");
        }
        rejectUnknown(root, ORDER_FIELDS, "");
        String customerId = identifier(root, "customerId", "customerId", Limits.MAX_CUSTOMER_ID);
        JsonNode currencyNode = root.get("currency");
        if (currencyNode == null || !currencyNode.isTextual() || !Limits.isCurrency(currencyNode.asText())) {
            throw new InvalidRequest("currency", "must be three capital letters (ISO 4217), e.g. \"EUR\"");
        }
        JsonNode linesNode = root.get("lines");
        if (linesNode == null || !linesNode.isArray()) {
            throw new InvalidRequest("lines", "must be an array of 1 to " + MAX_LINES + " lines");
        }
        if (linesNode.isEmpty() || linesNode.size() > MAX_LINES) {
            throw new InvalidRequest("lines", "must hold 1 to " + MAX_LINES + " lines, got " + linesNode.size());
        }
        List<OrderLine> lines = new ArrayList<>();
        for (int i = 0; i < linesNode.size(); i++) {
            lines.add(line(linesNode.get(i), "lines[" + i + "]"));
        }
        return new OrderRequest(customerId, currencyNode.asText(), lines);
    }

    private static OrderLine line(JsonNode node, String path) {
        if (node == null || !node.isObject()) {
            throw new InvalidRequest(path, "must be an object with sku, quantity and unitPriceCents");
        }
        rejectUnknown(node, LINE_FIELDS, path + ".");
        String sku = identifier(node, "sku", path + ".sku", Limits.MAX_SKU);
        long quantity = integer(node, "quantity", path + ".quantity", Limits.MIN_QUANTITY, MAX_QUANTITY);
        long price = integer(node, "unitPriceCents", path + ".unitPriceCents", Limits.MIN_UNIT_PRICE_CENTS,
                MAX_UNIT_PRICE);
        return new OrderLine(sku, (int) quantity, price);
    }

    /**
     * Identifiers are letters and digits (any script, precomposed) and {@code - _ . : @ / # +}:
     * no spaces, controls, NUL, format characters (RTL marks, zero-width joiners), combining
     * marks, lone surrogates, symbols or emoji. They are stored, logged, sent to participants and
     * compared byte for byte: two spellings that look alike must not be two customers.
     */
    private static String identifier(JsonNode node, String name, String path, int max) {
        JsonNode value = node.get(name);
        if (value == null || !value.isTextual()) {
            throw new InvalidRequest(path, Limits.identifierRule(max));
        }
        String text = value.asText();
        Limits.identifierProblem(text, max).ifPresent(problem -> {
            throw new InvalidRequest(path, problem);
        });
        return text;
    }

    private static long integer(JsonNode node, String name, String path, long min, long max) {
        JsonNode value = node.get(name);
        if (value == null || !value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new InvalidRequest(path, "must be an integer from " + min + " to " + max);
        }
        long v = value.asLong();
        if (v < min || v > max) {
            throw new InvalidRequest(path, "must be from " + min + " to " + max + ", got " + v);
        }
        return v;
    }

    private static void rejectUnknown(JsonNode node, Set<String> known, String prefix) {
        for (Iterator<String> it = node.fieldNames(); it.hasNext();) {
            String field = it.next();
            if (!known.contains(field)) {
                throw new InvalidRequest(prefix + field, "unknown field");
            }
        }
    }
}
