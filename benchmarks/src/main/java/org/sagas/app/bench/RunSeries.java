package org.sagas.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.sagas.orchestrator.Json;

/**
 * Several cold runs of one benchmark ({@code --runs N}) and, for each figure every successful run
 * has, its median, min and max: what a headline quotes (docs/benchmarks.md, "Headlines"). Every run
 * is listed with its exit and its file, failed ones too.
 */
final class RunSeries {
    /** The figures printed as a table; the file has every numeric figure. */
    private static final Set<String> HEADLINE = Set.of("orders_per_second", "product_cpu_ms_per_order",
            "product_cpu_ms_per_order_jvm", "product_cpu_ms_per_order_postgres", "product_cpu_ms_per_order_broker",
            "product_transactions_per_order", "submit_p99_ms", "confirm_p99_ms", "accepted", "parked", "shed_503",
            "reference_cpu_ms_before", "product_cpu_per_order_in_reference_runs");

    record Run(int number, int exit, Path file) {
        boolean succeeded() {
            return exit == 0 && Files.exists(file);
        }
    }

    record Spread(double median, double min, double max, int runs) {}

    private final String benchmark;
    private final List<Run> runs;
    private final List<Map<String, Double>> figures;
    private final Map<String, Spread> spreads;

    private RunSeries(String benchmark, List<Run> runs, List<Map<String, Double>> figures,
            Map<String, Spread> spreads) {
        this.benchmark = benchmark;
        this.runs = runs;
        this.figures = figures;
        this.spreads = spreads;
    }

    static RunSeries of(String benchmark, List<Run> runs) {
        List<Map<String, Double>> figures = new ArrayList<>();
        for (Run run : runs) {
            figures.add(run.succeeded() ? numbers(read(run.file())) : Map.of());
        }
        Map<String, Spread> spreads = new LinkedHashMap<>();
        List<Map<String, Double>> ok = figures.stream().filter(f -> !f.isEmpty()).toList();
        if (!ok.isEmpty()) {
            for (String path : ok.get(0).keySet()) {
                List<Double> values = new ArrayList<>();
                for (Map<String, Double> f : ok) {
                    if (f.containsKey(path)) {
                        values.add(f.get(path));
                    }
                }
                if (values.size() == ok.size()) {
                    spreads.put(path, spread(values));
                }
            }
        }
        return new RunSeries(benchmark, List.copyOf(runs), figures, spreads);
    }

    int failed() {
        return (int) runs.stream().filter(r -> !r.succeeded()).count();
    }

    Map<String, Spread> spreads() {
        return spreads;
    }

    static Spread spread(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        double median = n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
        return new Spread(round(median), round(sorted.get(0)), round(sorted.get(n - 1)), n);
    }

    /** Every numeric leaf of a result, by its path ({@code [0].submit_p99_ms}); statement lists left out. */
    static Map<String, Double> numbers(JsonNode result) {
        Map<String, Double> out = new LinkedHashMap<>();
        collect(result, "", out);
        return out;
    }

    private static void collect(JsonNode node, String path, Map<String, Double> out) {
        if (node.isNumber()) {
            out.put(path, node.asDouble());
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                collect(node.get(i), path + "[" + i + "]", out);
            }
        } else if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> field = it.next();
                if (!field.getKey().endsWith("statements")) {
                    collect(field.getValue(), path.isEmpty() ? field.getKey() : path + "." + field.getKey(), out);
                }
            }
        }
    }

    void write(Path file) {
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("benchmark", benchmark);
        doc.put("cold_runs", runs.size());
        doc.put("failed_runs", failed());
        List<Map<String, Object>> listed = new ArrayList<>();
        for (Run run : runs) {
            Map<String, Object> r = new LinkedHashMap<>();
            r.put("run", run.number());
            r.put("exit", run.exit());
            r.put("succeeded", run.succeeded());
            r.put("file", run.file().toString());
            listed.add(r);
        }
        doc.put("runs", listed);
        Map<String, Object> medians = new LinkedHashMap<>();
        spreads.forEach((path, s) -> medians.put(path, Map.of("median", s.median(), "min", s.min(), "max", s.max(),
                "runs", s.runs())));
        doc.put("median_min_max", medians);
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(doc));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    void print(PrintStream out) {
        out.printf("%n%s: %d cold runs, %d failed%n", benchmark, runs.size(), failed());
        StringBuilder header = new StringBuilder(String.format("  %-58s", "figure"));
        for (Run run : runs) {
            header.append(String.format(" %9s", "run " + run.number() + (run.succeeded() ? "" : " ✗")));
        }
        out.println(header.append(String.format(" %9s %9s %9s", "median", "min", "max")));
        spreads.forEach((path, s) -> {
            String leaf = path.substring(path.lastIndexOf('.') + 1).replaceAll("^\\[\\d+]", "");
            if (!HEADLINE.contains(leaf)) {
                return;
            }
            StringBuilder line = new StringBuilder(String.format("  %-58s", path));
            for (Map<String, Double> f : figures) {
                line.append(f.containsKey(path) ? String.format(" %9.1f", f.get(path)) : String.format(" %9s", "—"));
            }
            out.println(line.append(String.format(" %9.1f %9.1f %9.1f", s.median(), s.min(), s.max())));
        });
    }

    private static JsonNode read(Path file) {
        try {
            return Json.mapper().readTree(Files.readString(file));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file, e);
        }
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
