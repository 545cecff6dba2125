package org.sagas.orchestrator.config;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * A module's settings, each declared once (as Kafka's {@code ConfigDef} does): from this table
 * come parsing and validation ({@link #read}), {@code ./sagas --help} ({@link #helpLines}) and
 * the configuration reference in {@code docs/configuration.md} ({@link #markdown}). Immutable
 * once built; {@link Values} is immutable too.
 */
public final class SettingsTable {
    private final String title;
    private final Map<String, Setting<?>> settings;

    private SettingsTable(String title, Map<String, Setting<?>> settings) {
        this.title = title;
        this.settings = Collections.unmodifiableMap(settings);
    }

    /** A table named {@code title} (a heading in the reference) holding {@code settings}, in order. */
    public static SettingsTable of(String title, List<Setting<?>> settings) {
        Map<String, Setting<?>> map = new LinkedHashMap<>();
        for (Setting<?> s : settings) {
            if (map.put(s.name(), s) != null) {
                throw new IllegalArgumentException("setting declared twice: " + s.name());
            }
        }
        return new SettingsTable(title, map);
    }

    public String title() {
        return title;
    }

    public List<Setting<?>> settings() {
        return List.copyOf(settings.values());
    }

    /**
     * Parses every setting of the table from {@code env} (null: unset).
     *
     * @throws ConfigException for the first value that is malformed or out of range, naming it
     */
    public Values read(Function<String, String> env) {
        Map<String, Object> values = new LinkedHashMap<>();
        Map<String, String> raw = new LinkedHashMap<>();
        for (Setting<?> s : settings.values()) {
            String value = env.apply(s.name());
            raw.put(s.name(), value == null || value.isBlank() ? s.defaultValue() : value.trim());
            values.put(s.name(), s.parse(value));
        }
        return new Values(Collections.unmodifiableMap(values), Collections.unmodifiableMap(raw));
    }

    /** One line per setting for {@code --help}. */
    public List<String> helpLines() {
        List<String> lines = new ArrayList<>();
        for (Setting<?> s : settings.values()) {
            String def = s.defaultValue().isEmpty() ? "" : " (default " + s.defaultValue()
                    + (s.unit().isEmpty() ? "" : " " + s.unit()) + ")";
            lines.add(String.format("  %-40s %s%s", s.name(), s.doc(), def));
        }
        return lines;
    }

    /** The table as Markdown: variable, type, default, valid range, unit, roles, what it does. */
    public String markdown() {
        StringBuilder out = new StringBuilder("## ").append(title).append("\n\n")
                .append("| variable | type | default | valid | unit | read by | what it does |\n")
                .append("|---|---|---|---|---|---|---|\n");
        for (Setting<?> s : settings.values()) {
            out.append("| `").append(s.name()).append("` | ").append(s.type()).append(" | ")
                    .append(s.defaultValue().isEmpty() ? "(unset)" : "`" + s.defaultValue() + "`").append(" | ")
                    .append(s.range()).append(" | ").append(s.unit()).append(" | ").append(s.rolesText())
                    .append(" | ").append(s.doc().replace("|", "\\|")).append(" |\n");
        }
        return out.append('\n').toString();
    }

    /** Parsed values of one table. Immutable. */
    public static final class Values {
        private final Map<String, Object> values;
        private final Map<String, String> raw;

        private Values(Map<String, Object> values, Map<String, String> raw) {
            this.values = values;
            this.raw = raw;
        }

        /** The parsed value of {@code setting}, which must belong to this table. */
        @SuppressWarnings("unchecked")
        public <T> T get(Setting<T> setting) {
            if (!values.containsKey(setting.name())) {
                throw new IllegalArgumentException("not a setting of this table: " + setting.name());
            }
            return (T) values.get(setting.name());
        }

        /** The text each variable had (its default when unset). */
        public Map<String, String> raw() {
            return raw;
        }
    }
}
