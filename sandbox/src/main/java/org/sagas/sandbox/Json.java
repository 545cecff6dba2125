package org.sagas.sandbox;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.UncheckedIOException;
import java.util.Optional;
import java.util.Set;
import org.sagas.orchestrator.ordering.Limits;

/**
 * Reads request bodies strictly and names the field at fault: every failure is a
 * {@link Problem#invalid} (400). Stateless and thread-safe.
 */
final class Json {
    /** The product's strict reader for outside input: the sandbox reads what the API would. */
    static final ObjectMapper MAPPER = org.sagas.orchestrator.Json.strict();

    private Json() {}

    /** The body as a JSON object. */
    static JsonNode object(String body) {
        JsonNode node;
        try {
            node = MAPPER.readTree(body == null ? "" : body);
        } catch (JsonProcessingException e) {
            throw Problem.invalid("body", "malformed JSON (" + e.getOriginalMessage() + ")");
        }
        if (node == null || !node.isObject()) {
            throw Problem.invalid("body", "must be a JSON object");
        }
        return node;
    }

    static String write(Object value) {
        try {
            return MAPPER.writeValueAsString(value);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The member {@code name} of {@code parent}; {@code path} names it in errors. */
    static JsonNode required(JsonNode parent, String name, String path) {
        JsonNode node = parent.get(name);
        if (node == null || node.isNull()) {
            throw Problem.invalid(path, "is required");
        }
        return node;
    }

    /** The member {@code name} when present; an explicit null is invalid. */
    static Optional<JsonNode> optional(JsonNode parent, String name) {
        JsonNode node = parent.get(name);
        if (node != null && node.isNull()) {
            throw Problem.invalid(name, "must not be null");
        }
        return Optional.ofNullable(node);
    }

    /** Rejects members other than {@code allowed}, so a misspelt field is not silently ignored. */
    static void onlyFields(JsonNode object, String... allowed) {
        Set<String> known = Set.of(allowed);
        object.fieldNames().forEachRemaining(name -> {
            if (!known.contains(name)) {
                throw Problem.invalid(name, "unknown field; expected one of " + String.join(", ", allowed));
            }
        });
    }

    static String text(JsonNode node, String path, int maxLength) {
        if (!node.isTextual()) {
            throw Problem.invalid(path, "must be a string");
        }
        return text(node.textValue(), path, maxLength);
    }

    /**
     * A string of 1 to {@code maxLength} printable characters (code points), from a body, a path or
     * a header: the orchestrator's own rule ({@link Limits}), so what its API accepts is accepted here.
     */
    static String text(String value, String path, int maxLength) {
        Limits.textProblem(value, maxLength).ifPresent(problem -> {
            throw Problem.invalid(path, problem);
        });
        return value;
    }

    static long integer(JsonNode node, String path, long min, long max) {
        if (!node.isIntegralNumber() || !node.canConvertToLong()) {
            throw Problem.invalid(path, "must be an integer");
        }
        long value = node.longValue();
        if (value < min || value > max) {
            throw Problem.invalid(path, "must be between " + min + " and " + max);
        }
        return value;
    }

    static double number(JsonNode node, String path, double min, double max) {
        if (!node.isNumber()) {
            throw Problem.invalid(path, "must be a number");
        }
        double value = node.doubleValue();
        if (!(value >= min && value <= max)) {
            throw Problem.invalid(path, "must be between " + min + " and " + max);
        }
        return value;
    }

    static boolean bool(JsonNode node, String path) {
        if (!node.isBoolean()) {
            throw Problem.invalid(path, "must be true or false");
        }
        return node.booleanValue();
    }
}
