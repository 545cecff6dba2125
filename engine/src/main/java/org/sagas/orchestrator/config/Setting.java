package org.sagas.orchestrator.config;

import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Function;

/**
 * One setting, declared once: its environment variable, type, default, valid range, unit, what
 * it does and which roles read it. Parsing and validation come from the declaration, so the
 * error for a bad value always names the variable and what it accepts. Immutable.
 *
 * @param <T> the parsed value's type
 */
public final class Setting<T> {
    private final String name;
    private final String type;
    private final String defaultValue;
    private final String range;
    private final String unit;
    private final Set<String> roles;
    private final String doc;
    private final Function<String, T> parser;

    private Setting(String name, String type, String defaultValue, String range, String unit, Set<String> roles,
            String doc, Function<String, T> parser) {
        if (!name.matches("[A-Z][A-Z0-9_]*")) {
            throw new IllegalArgumentException("a setting's name is an upper-case variable name: " + name);
        }
        this.name = name;
        this.type = type;
        this.defaultValue = Objects.requireNonNull(defaultValue, "defaultValue");
        this.range = range;
        this.unit = unit;
        this.roles = Set.copyOf(roles);
        this.doc = Objects.requireNonNull(doc, "doc");
        this.parser = parser;
    }

    /** Every role of the product, for settings all of them read. */
    public static final Set<String> ALL_ROLES = Set.of("api", "saga-worker", "relay", "payment-worker",
            "reconciler", "sandbox");

    /** An integer from {@code min} to {@code max}. */
    public static Setting<Integer> integer(String name, int defaultValue, int min, int max, String unit,
            Set<String> roles, String doc) {
        return new Setting<>(name, "integer", Integer.toString(defaultValue), min + " to " + max, unit, roles, doc,
                raw -> {
                    long v = parseLong(raw);
                    if (v < min || v > max) {
                        throw new NumberFormatException();
                    }
                    return (int) v;
                });
    }

    /** A duration given in milliseconds, from {@code minMillis} to {@code maxMillis}. */
    public static Setting<Duration> millis(String name, long defaultMillis, long minMillis, long maxMillis,
            Set<String> roles, String doc) {
        return new Setting<>(name, "duration", Long.toString(defaultMillis), minMillis + " to " + maxMillis, "ms",
                roles, doc, raw -> {
                    long v = parseLong(raw);
                    if (v < minMillis || v > maxMillis) {
                        throw new NumberFormatException();
                    }
                    return Duration.ofMillis(v);
                });
    }

    /** A decimal number from {@code min} to {@code max}. */
    public static Setting<Double> decimal(String name, double defaultValue, double min, double max, String unit,
            Set<String> roles, String doc) {
        return new Setting<>(name, "decimal", stripZero(defaultValue), stripZero(min) + " to " + stripZero(max),
                unit, roles, doc, raw -> {
                    double v = Double.parseDouble(raw);
                    if (!(v >= min && v <= max)) {
                        throw new NumberFormatException();
                    }
                    return v;
                });
    }

    /** {@code true} or {@code false}. */
    public static Setting<Boolean> bool(String name, boolean defaultValue, Set<String> roles, String doc) {
        return new Setting<>(name, "boolean", Boolean.toString(defaultValue), "true or false", "", roles, doc, raw -> {
            if (!raw.equalsIgnoreCase("true") && !raw.equalsIgnoreCase("false")) {
                throw new IllegalArgumentException();
            }
            return Boolean.parseBoolean(raw);
        });
    }

    /** Free text; {@code ""} when unset and the default is empty. */
    public static Setting<String> text(String name, String defaultValue, Set<String> roles, String doc) {
        return new Setting<>(name, "text", defaultValue, "", "", roles, doc, raw -> raw);
    }

    /** One of {@code allowed}, compared without case; the value is returned in lower case. */
    public static Setting<String> choice(String name, String defaultValue, List<String> allowed, Set<String> roles,
            String doc) {
        return new Setting<>(name, "choice", defaultValue, String.join(", ", allowed), "", roles, doc, raw -> {
            String value = raw.toLowerCase(java.util.Locale.ROOT);
            if (!allowed.contains(value)) {
                throw new IllegalArgumentException();
            }
            return value;
        });
    }

    /** A comma-separated list of free-text elements (blank ones dropped). */
    public static Setting<Set<String>> list(String name, Set<String> roles, String doc) {
        return new Setting<>(name, "list", "", "comma-separated", "", roles, doc, raw -> {
            Set<String> set = new LinkedHashSet<>();
            for (String part : raw.split(",")) {
                if (!part.isBlank()) {
                    set.add(part.trim());
                }
            }
            return Set.copyOf(set);
        });
    }

    /** A comma-separated subset of {@code allowed} ({@code none} or empty: no element). */
    public static Setting<Set<String>> subset(String name, String defaultValue, List<String> allowed,
            Set<String> roles, String doc) {
        return new Setting<>(name, "list", defaultValue, "any of " + String.join(", ", allowed) + " or none", "",
                roles, doc, raw -> {
                    Set<String> set = new LinkedHashSet<>();
                    for (String part : raw.split(",")) {
                        String element = part.trim();
                        if (element.isEmpty() || element.equals("none")) {
                            continue;
                        }
                        if (!allowed.contains(element)) {
                            throw new IllegalArgumentException();
                        }
                        set.add(element);
                    }
                    return Set.copyOf(set);
                });
    }

    /**
     * The value of this setting in {@code raw} (null or blank: the default).
     *
     * @throws ConfigException naming the variable and what it accepts
     */
    public T parse(String raw) {
        String value = raw == null || raw.isBlank() ? defaultValue : raw.trim();
        try {
            return parser.apply(value);
        } catch (RuntimeException e) {
            throw new ConfigException(name + " must be " + (range.isEmpty() ? type : type + " " + range)
                    + (unit.isEmpty() ? "" : " (" + unit + ")") + ", was '" + value + "'", e);
        }
    }

    public String name() {
        return name;
    }

    public String type() {
        return type;
    }

    public String defaultValue() {
        return defaultValue;
    }

    public String range() {
        return range;
    }

    public String unit() {
        return unit;
    }

    public Set<String> roles() {
        return roles;
    }

    public String doc() {
        return doc;
    }

    /** Roles in the product's usual order, for tables. */
    public String rolesText() {
        if (roles.containsAll(ALL_ROLES)) {
            return "all";
        }
        return String.join(", ", Arrays.stream(new String[] {"api", "saga-worker", "relay", "payment-worker",
                "reconciler", "sandbox", "up", "bench"}).filter(roles::contains).toList());
    }

    private static long parseLong(String raw) {
        return Long.parseLong(raw);
    }

    private static String stripZero(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
