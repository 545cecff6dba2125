package org.sagas.app.check;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import org.sagas.orchestrator.Json;

/** A {@link Report} for people (one line per invariant) and as a JSON document for scripts. */
public final class ReportOutput {
    private static final int ID_COLUMN = 3;

    private ReportOutput() {}

    /** The table: invariant, verdict, count, the first ids, then the detail of each failure. */
    public static void table(Report report, PrintStream out) {
        out.printf("%-26s %-10s %7s  %s%n", "INVARIANT", "VERDICT", "COUNT", "FIRST IDS");
        for (Verdict v : report.verdicts()) {
            String ids = String.join(" ", v.offendingIds().subList(0, Math.min(ID_COLUMN, v.offendingIds().size())))
                    + (v.count() > Math.min(ID_COLUMN, v.offendingIds().size()) ? " …" : "");
            out.printf("%-26s %-10s %7d  %s%n", v.invariant().name(), v.outcome().name(), v.count(), ids);
        }
        for (Verdict v : report.verdicts()) {
            if (!v.passed() || v.outcome() == Verdict.Outcome.NOT_JUDGED) {
                out.println(v.invariant().name() + " (" + v.invariant().title() + "): " + v.detail());
            }
        }
        out.println(report.passed() ? "sagas check: every invariant holds"
                : "sagas check: " + report.failed().size() + " invariant(s) failed: " + report.failed());
    }

    /** The report as JSON: {@code {"checkedAt","passed","settleSeconds","outboxAgeSeconds","scope","invariants":[…]}}. */
    public static ObjectNode json(Report report) {
        ObjectNode root = Json.mapper().createObjectNode();
        root.put("checkedAt", report.checkedAt().toString());
        root.put("passed", report.passed());
        root.put("settleSeconds", report.options().settle().toMillis() / 1000.0);
        root.put("outboxAgeSeconds", report.options().outboxAge().toMillis() / 1000.0);
        ArrayNode scope = root.putArray("orders");
        report.options().orders().stream().map(Object::toString).sorted().forEach(scope::add);
        ArrayNode invariants = root.putArray("invariants");
        for (Verdict v : report.verdicts()) {
            ObjectNode n = invariants.addObject();
            n.put("invariant", v.invariant().name());
            n.put("title", v.invariant().title());
            n.put("verdict", v.outcome().name());
            n.put("passed", v.passed());
            n.put("count", v.count());
            ArrayNode ids = n.putArray("ids");
            v.offendingIds().forEach(ids::add);
            n.put("detail", v.detail());
        }
        return root;
    }

    /** Writes {@link #json} to {@code file}, pretty-printed. */
    public static void writeJson(Report report, Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        Files.writeString(file, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(json(report)) + "\n");
    }
}
