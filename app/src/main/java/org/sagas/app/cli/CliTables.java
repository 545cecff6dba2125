package org.sagas.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;

/** How the operator CLI shows answers to people: aligned tables and short lines. Stateless. */
final class CliTables {
    private static final int MAX_CELL = 60;

    private CliTables() {}

    /** Prints {@code rows} (objects) under {@code columns} (field names, shown upper-case). */
    static void table(PrintStream out, JsonNode rows, String... columns) {
        List<String[]> lines = new ArrayList<>();
        String[] head = new String[columns.length];
        for (int i = 0; i < columns.length; i++) {
            head[i] = header(columns[i]);
        }
        lines.add(head);
        for (JsonNode row : rows) {
            String[] line = new String[columns.length];
            for (int i = 0; i < columns.length; i++) {
                line[i] = cell(row.get(columns[i]));
            }
            lines.add(line);
        }
        int[] width = new int[columns.length];
        for (String[] line : lines) {
            for (int i = 0; i < line.length; i++) {
                width[i] = Math.max(width[i], line[i].length());
            }
        }
        for (String[] line : lines) {
            StringBuilder b = new StringBuilder();
            for (int i = 0; i < line.length; i++) {
                b.append(i == line.length - 1 ? line[i] : String.format("%-" + width[i] + "s  ", line[i]));
            }
            out.println(b.toString().stripTrailing());
        }
        if (rows.isEmpty()) {
            out.println("(none)");
        }
    }

    /** {@code name: value} lines for the fields of {@code node} that are set. */
    static void fields(PrintStream out, JsonNode node, String... names) {
        for (String name : names) {
            JsonNode v = node.get(name);
            if (v != null && !v.isNull()) {
                out.printf("  %-16s %s%n", name, v.isValueNode() ? time(v.asText()) : v.toString());
            }
        }
    }

    /** A saga's state on one line, e.g. for a 409's "current state". */
    static String state(JsonNode s) {
        StringBuilder b = new StringBuilder(s.path("status").asText("?"));
        b.append(" (").append(s.path("sagaStatus").asText("?")).append(" at ").append(s.path("step").asText("?"))
                .append(", version ").append(s.path("version").asText("?"));
        if (s.hasNonNull("parkedOn")) {
            b.append(", parked on ").append(s.get("parkedOn").asText());
            if (s.hasNonNull("parkReason")) {
                b.append(": ").append(s.get("parkReason").asText());
            }
        }
        return b.append(')').toString();
    }

    static String cell(JsonNode v) {
        if (v == null || v.isNull()) {
            return "-";
        }
        String text = v.isValueNode() ? time(v.asText()) : v.toString();
        return text.length() <= MAX_CELL ? text : text.substring(0, MAX_CELL - 1) + "…";
    }

    /** ISO instants to the second, easier to read in a table. */
    static String time(String text) {
        if (text.length() >= 20 && text.charAt(4) == '-' && text.charAt(10) == 'T' && text.endsWith("Z")) {
            return text.substring(0, 10) + " " + text.substring(11, 19) + "Z";
        }
        return text;
    }

    private static String header(String field) {
        return field.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(java.util.Locale.ROOT);
    }
}
