package org.sagas.peers.saga;

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
import java.util.TreeMap;

/**
 * The run's table (one row per contender, round and phase) and {@code saga-peers.json}:
 * {@code {"run":{…},"contenders":[{"name","round","orders_per_second","cpu_ms_per_order","submit_p99_ms",
 * "rows_per_order",…,"cold":{…},"warmed":{…},"closed":{…}}]}}, one entry per contender and round,
 * the headline figures being the warmed phase's.
 */
final class SagaTable {
    private final List<ContenderRun.Result> results = new ArrayList<>();

    void add(ContenderRun.Result result) {
        results.add(result);
    }

    void print(PrintStream out) {
        out.println("| contender | phase | orders/s to final | submit p50 / p99 ms | submit→final p50 / p99 ms"
                + " | CPU ms/order: engine = JVM + PG backends + broker | PG tx / rows / WAL KB per order | valid |");
        out.println("|---|---|---|---|---|---|---|---|");
        for (ContenderRun.Result r : results) {
            for (PhaseFigures p : r.phases()) {
                PhaseFigures.Cpu c = p.cpu();
                out.printf(Locale.ROOT, "| %s | %s | %.1f (offered %.0f) | %.1f / %.1f | %.0f / %.0f"
                        + " | %.2f = %.2f + %.2f + %.2f | %.2f / %.2f / %.2f | %s |%n",
                        r.contender().name() + " r" + r.round(), p.phase(), p.ordersPerSecond(), p.offeredRate(), p.submitP50Ms(),
                        p.submitP99Ms(), p.finalP50Ms(), p.finalP99Ms(), c.engine(), c.engineJvm(),
                        c.engineBackends(), c.broker(), p.db().transactions(), p.db().rowsWritten(), p.db().walKb(),
                        r.problems().isEmpty() ? "yes" : "**invalid**");
            }
        }
        out.println();
        out.println("| contender | phase | sent / accepted / refused | final states | orders/s the cores allow at the"
                + " engine's CPU cost | CPU ms/order beside the engine: PG background / sandboxes / client |");
        out.println("|---|---|---|---|---|---|");
        for (ContenderRun.Result r : results) {
            for (PhaseFigures p : r.phases()) {
                PhaseFigures.Cpu c = p.cpu();
                out.printf(Locale.ROOT, "| %s | %s | %d / %d / %d%s | %s | %.0f | %.2f / %.2f / %.2f |%n",
                        r.contender().name() + " r" + r.round(), p.phase(), p.sent(), p.accepted(), p.refusedCount(),
                        p.refused().isEmpty() ? "" : " " + p.refused(), new TreeMap<>(p.finals()),
                        c.cpuBoundRate(), c.pgBackground(), c.participants(), c.client());
            }
        }
        if (!results.isEmpty()) {
            List<String> groups = List.copyOf(results.get(0).warmed().engineJvmByThreadGroup().keySet());
            out.println();
            out.println("| contender | phase | engine JVM CPU ms/order by thread group: " + String.join(" / ", groups) + " |");
            out.println("|---|---|---|");
            for (ContenderRun.Result r : results) {
                for (PhaseFigures p : r.phases()) {
                    out.printf(Locale.ROOT, "| %s | %s | %s |%n", r.contender().name() + " r" + r.round(), p.phase(),
                            String.join(" / ", groups.stream().map(g -> String.format(Locale.ROOT, "%.2f",
                                    p.engineJvmByThreadGroup().getOrDefault(g, 0.0))).toList()));
                }
            }
        }
        for (ContenderRun.Result r : results) {
            if (!r.problems().isEmpty()) {
                out.println("invalid " + r.contender().name() + " round " + r.round() + ": " + String.join("; ", r.problems()));
            }
        }
    }

    void write(Path file, Map<String, Object> run) throws IOException {
        List<Map<String, Object>> contenders = new ArrayList<>();
        for (ContenderRun.Result r : results) {
            Map<String, Object> c = new LinkedHashMap<>();
            c.put("name", r.contender().name());
            c.put("label", r.contender().label());
            c.put("round", r.round());
            c.put("orders_per_second", PhaseFigures.r1(r.warmed().ordersPerSecond()));
            c.put("cpu_ms_per_order", PhaseFigures.r2(r.warmed().cpu().engine()));
            c.put("submit_p99_ms", PhaseFigures.r1(r.warmed().submitP99Ms()));
            c.put("rows_per_order", PhaseFigures.r2(r.warmed().db().rowsWritten()));
            c.put("valid", r.problems().isEmpty());
            c.put("problems", r.problems());
            c.put("start_seconds", PhaseFigures.r1(r.startSeconds()));
            c.put("cold", r.cold().toJson());
            c.put("warmed", r.warmed().toJson());
            if (r.closed() != null) {
                c.put("closed", r.closed().toJson());
            }
            c.put("timeout_probe", r.probe());
            c.put("rows_written_per_order_by_table", r.rowsByTable());
            contenders.add(c);
        }
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("run", run);
        root.put("contenders", contenders);
        Files.createDirectories(file.toAbsolutePath().getParent());
        Files.writeString(file, new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(root) + "\n");
    }
}
