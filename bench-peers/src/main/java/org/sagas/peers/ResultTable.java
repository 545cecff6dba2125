package org.sagas.peers;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One row per contender: the drain rate and the table left from its draining round; p50 and p99
 * from the better of its two latency rounds, since other work on a shared machine only ever adds
 * latency (the mean of the rounds and each round are kept in the JSON beside it).
 */
final class ResultTable {
    private final List<Map<String, Object>> rows = new ArrayList<>();

    void add(String label, List<Round> rounds) {
        Round drained = rounds.stream().filter(r -> r.drain() != null).findFirst()
                .orElseThrow(() -> new IllegalStateException(label + " has no draining round"));
        Map<String, Object> row = new LinkedHashMap<>();
        row.put("relay", label);
        row.put("events_per_second", drained.drain().eventsPerSecond());
        row.put("p50_ms", round3(rounds.stream().mapToDouble(Round::p50Ms).min().orElseThrow()));
        row.put("p99_ms", round3(rounds.stream().mapToDouble(Round::p99Ms).min().orElseThrow()));
        row.put("dead_tuples", drained.table().deadTuples());
        row.put("table_bytes", drained.table().bytes());
        row.put("live_tuples", drained.table().liveTuples());
        row.put("dead_tuples_pgstattuple", drained.table().exactDeadTuples());
        row.put("live_tuples_pgstattuple", drained.table().exactLiveTuples());
        row.put("p50_ms_mean", round3(rounds.stream().mapToDouble(Round::p50Ms).average().orElseThrow()));
        row.put("p99_ms_mean", round3(rounds.stream().mapToDouble(Round::p99Ms).average().orElseThrow()));
        row.put("table", drained.table().table());
        row.put("drain_rows", drained.drain().rows());
        row.put("drained", drained.drain().drained());
        row.put("drain_seconds", drained.drain().seconds());
        row.put("drain_capped", drained.drain().capped());
        row.put("drain_first_ack_seconds", drained.drain().firstAckSeconds());
        row.put("rounds_p50_ms", rounds.stream().map(Round::p50Ms).toList());
        row.put("rounds_p99_ms", rounds.stream().map(Round::p99Ms).toList());
        row.put("load_average_1m_after_drain", round3(drained.loadAverage()));
        rows.add(row);
    }

    void print(PrintStream out) {
        out.println("| relay | events/s drained | p50 ms | p99 ms at 1 000/s | dead tuples left | table size |");
        out.println("|---|---|---|---|---|---|");
        for (Map<String, Object> row : rows) {
            String rate = grouped((Long) row.get("events_per_second"));
            if ((Boolean) row.get("drain_capped")) {
                rate += String.format(Locale.ROOT, " (%s of %s in %.0f s, capped)", grouped((Long) row.get("drained")),
                        grouped((Long) row.get("drain_rows")), (Double) row.get("drain_seconds"));
            }
            String dead = grouped((Long) row.get("dead_tuples"));
            if ((Long) row.get("dead_tuples_pgstattuple") >= 0) {
                dead += " (pgstattuple: " + grouped((Long) row.get("dead_tuples_pgstattuple")) + ")";
            }
            out.printf(Locale.ROOT, "| %s | %s | %.2f | %.1f | %s | %s |%n", row.get("relay"), rate, row.get("p50_ms"),
                    row.get("p99_ms"), dead, size((Long) row.get("table_bytes")));
        }
    }

    void write(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        Files.createDirectories(parent);
        Files.writeString(file, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(rows) + "\n");
    }

    private static String size(long bytes) {
        return bytes < 1024 * 1024 ? String.format(Locale.ROOT, "%d kB", bytes / 1024)
                : String.format(Locale.ROOT, "%.1f MB", bytes / 1e6);
    }

    /** {@code 200000} as {@code 200 000}, as the README writes figures. */
    private static String grouped(long value) {
        return String.format(Locale.ROOT, "%,d", value).replace(',', ' ');
    }

    private static double round3(double value) {
        return Math.round(value * 1000) / 1000.0;
    }
}
