package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.sagas.orchestrator.http.InvalidRequest;
import org.sagas.orchestrator.ordering.OrderFilter;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * Reads the saga list's filter (the admin openapi.json) from query parameters or from a batch's JSON
 * {@code filter}, with one error per mistake naming the parameter. The same names in both. Stateless.
 */
final class FilterParams {
    static final List<String> NAMES = List.of("status", "customerId", "idempotencyKey", "step", "parkedOn", "incident",
            "stuckForSeconds", "createdFrom", "createdTo", "version");
    private static final Pattern STEP = Pattern.compile("[A-Z][A-Z0-9_]{0,63}");
    private static final Pattern DEPENDENCY = Pattern.compile("[a-z][a-z0-9_-]{0,63}");
    private static final Pattern CAUSE = Pattern.compile("[A-Z][A-Z0-9_]{0,63}");

    private FilterParams() {}

    /**
     * From query parameters; {@code alsoAllowed} are the other parameters the route takes.
     *
     * @throws InvalidRequest for an unknown parameter or a bad value
     */
    static OrderFilter fromQuery(Map<String, List<String>> params, Set<String> alsoAllowed) {
        for (String name : params.keySet()) {
            if (!NAMES.contains(name) && !alsoAllowed.contains(name)) {
                throw new InvalidRequest(name, "unknown parameter; filters are " + String.join(", ", NAMES));
            }
        }
        return from(params);
    }

    /** From a JSON object with the same names ({@code status} a string or an array of them). */
    static OrderFilter fromJson(JsonNode filter) {
        if (filter == null || filter.isNull()) {
            return OrderFilter.all();
        }
        if (!filter.isObject()) {
            throw new InvalidRequest("filter", "must be an object with " + String.join(", ", NAMES));
        }
        Map<String, List<String>> params = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> f : filter.properties()) {
            if (!NAMES.contains(f.getKey())) {
                throw new InvalidRequest("filter." + f.getKey(), "unknown filter; filters are " + String.join(", ",
                        NAMES));
            }
            List<String> values = new ArrayList<>();
            if (f.getValue().isArray()) {
                f.getValue().forEach(v -> values.add(scalar("filter." + f.getKey(), v)));
            } else if (!f.getValue().isNull()) {
                values.add(scalar("filter." + f.getKey(), f.getValue()));
            }
            params.put(f.getKey(), values);
        }
        return from(params);
    }

    /** The filter as JSON, as a batch stores and shows it. */
    static Map<String, Object> toJson(OrderFilter f) {
        Map<String, Object> m = new LinkedHashMap<>();
        if (!f.statuses().isEmpty()) {
            m.put("status", f.statuses().stream().map(Enum::name).sorted().toList());
        }
        putIf(m, "customerId", f.customerId());
        putIf(m, "idempotencyKey", f.idempotencyKey());
        putIf(m, "step", f.step());
        putIf(m, "parkedOn", f.parkedOn());
        putIf(m, "incident", f.incident());
        putIf(m, "stuckForSeconds", f.stuckFor() == null ? null : f.stuckFor().toSeconds());
        putIf(m, "createdFrom", f.createdFrom() == null ? null : f.createdFrom().toString());
        putIf(m, "createdTo", f.createdTo() == null ? null : f.createdTo().toString());
        putIf(m, "version", f.definitionVersion());
        return m;
    }

    /** True when no criterion is set: everything matches. */
    static boolean isEmpty(OrderFilter f) {
        return toJson(f).isEmpty();
    }

    private static OrderFilter from(Map<String, List<String>> p) {
        Set<OrderStatus> statuses = EnumSet.noneOf(OrderStatus.class);
        for (String value : p.getOrDefault("status", List.of())) {
            for (String one : value.split(",")) {
                if (!one.isBlank()) {
                    statuses.add(status(one.strip()));
                }
            }
        }
        String incident = one(p, "incident");
        if (incident != null) {
            String upper = incident.toUpperCase(Locale.ROOT);
            incident = upper.equals("ANY") || upper.equals("TRUE") ? OrderFilter.ANY_INCIDENT
                    : matching("incident", upper, CAUSE, "an incident cause (e.g. PAYMENT_UNRESOLVED) or 'any'");
        }
        String step = one(p, "step");
        String stuck = one(p, "stuckForSeconds");
        String version = one(p, "version");
        return new OrderFilter(statuses,
                text("customerId", one(p, "customerId"), 64),
                text("idempotencyKey", one(p, "idempotencyKey"), 255),
                step == null ? null : matching("step", step.toUpperCase(Locale.ROOT), STEP, "a step name (e.g. "
                        + "RESERVE_STOCK)"),
                matching("parkedOn", one(p, "parkedOn"), DEPENDENCY, "a dependency name (e.g. inventory)"),
                incident,
                stuck == null ? null : Duration.ofSeconds(number("stuckForSeconds", stuck, 0, 31_536_000)),
                instant("createdFrom", one(p, "createdFrom")),
                instant("createdTo", one(p, "createdTo")),
                version == null ? null : (int) number("version", version, 1, 1_000));
    }

    private static String one(Map<String, List<String>> p, String name) {
        List<String> values = p.get(name);
        if (values == null || values.isEmpty()) {
            return null;
        }
        if (values.size() > 1) {
            throw new InvalidRequest(name, "give it once");
        }
        String v = values.get(0).strip();
        return v.isEmpty() ? null : v;
    }

    private static OrderStatus status(String value) {
        try {
            return OrderStatus.valueOf(value.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequest("status", "must be one of " + java.util.Arrays.toString(OrderStatus.values())
                    + " (got '" + value + "')");
        }
    }

    private static String text(String name, String value, int max) {
        if (value != null && value.length() > max) {
            throw new InvalidRequest(name, "must be at most " + max + " characters");
        }
        return value;
    }

    private static String matching(String name, String value, Pattern pattern, String what) {
        if (value != null && !pattern.matcher(value).matches()) {
            throw new InvalidRequest(name, "must be " + what + " (got '" + value + "')");
        }
        return value;
    }

    static long number(String name, String value, long min, long max) {
        try {
            long n = Long.parseLong(value.strip());
            if (n < min || n > max) {
                throw new NumberFormatException();
            }
            return n;
        } catch (NumberFormatException e) {
            throw new InvalidRequest(name, "must be an integer from " + min + " to " + max + " (got '" + value + "')");
        }
    }

    private static Instant instant(String name, String value) {
        if (value == null) {
            return null;
        }
        try {
            return OffsetDateTime.parse(value).toInstant();
        } catch (DateTimeParseException e) {
            throw new InvalidRequest(name, "must be a time like 2026-11-29T10:00:00Z (got '" + value + "')");
        }
    }

    private static String scalar(String name, JsonNode v) {
        if (!v.isValueNode() || v.isNull()) {
            throw new InvalidRequest(name, "must be a string or a number");
        }
        return v.asText();
    }

    private static void putIf(Map<String, Object> m, String name, Object value) {
        if (value != null) {
            m.put(name, value);
        }
    }
}
