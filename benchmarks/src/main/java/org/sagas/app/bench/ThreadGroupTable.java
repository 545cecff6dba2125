package org.sagas.app.bench;

import java.io.PrintStream;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The product JVM's CPU per order by thread group ({@link org.sagas.testkit.ThreadCpu}), as each
 * benchmark's rows carry it under {@link #KEY} and print it: one column per group after the
 * columns the benchmark leads with.
 */
final class ThreadGroupTable {
    static final String KEY = "product_cpu_ms_per_order_by_thread_group";

    private ThreadGroupTable() {}

    /** Milliseconds per order of each group (every group null when no order counts). */
    static Map<String, Object> perOrder(Map<String, Duration> used, long orders) {
        Map<String, Object> groups = new LinkedHashMap<>();
        used.forEach((group, d) -> groups.put(group, orders == 0 ? null
                : Math.round(d.toNanos() / 1e6 / orders * 10) / 10.0));
        return groups;
    }

    /** Leading columns in their order: a header, then the row key it shows, and so on. */
    static Map<String, String> columns(String... headerThenKey) {
        Map<String, String> columns = new LinkedHashMap<>();
        for (int i = 0; i + 1 < headerThenKey.length; i += 2) {
            columns.put(headerThenKey[i], headerThenKey[i + 1]);
        }
        return columns;
    }

    /**
     * Prints the rows that carry {@link #KEY}, then {@code footnote}: the {@code leading} columns
     * (header to row key), then the groups; nothing when the first row has none.
     */
    static void print(PrintStream out, List<Map<String, Object>> rows, Map<String, String> leading, String footnote) {
        if (rows.isEmpty() || !(rows.get(0).get(KEY) instanceof Map<?, ?> first)) {
            return;
        }
        out.println();
        out.println("| " + String.join(" | ", leading.keySet()) + " | " + String.join(" | ", first.keySet().stream()
                .map(String::valueOf).toList()) + " |");
        out.println("|" + "---|".repeat(leading.size() + first.size()));
        for (Map<String, Object> r : rows) {
            Map<?, ?> groups = r.get(KEY) instanceof Map<?, ?> g ? g : Map.of();
            StringBuilder line = new StringBuilder("|");
            leading.values().forEach(k -> line.append(' ').append(r.get(k)).append(" |"));
            first.keySet().forEach(k -> line.append(' ').append(groups.get(k)).append(" |"));
            out.println(line);
        }
        out.println(footnote);
    }
}
