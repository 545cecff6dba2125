package org.sagas.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sagas.orchestrator.Json;

/** What each verb of {@code ./sagas admin} asks the operator API, and how it shows the answer. */
final class AdminVerbs {
    private static final String[] SAGA_COLUMNS = {"orderId", "status", "customerId", "totalCents", "step", "parkedOn",
        "incidentCause", "version", "createdAt"};

    private final AdminClient api;
    private final CliArgs a;
    private final PrintStream out;
    private final boolean json;

    AdminVerbs(AdminClient api, CliArgs a, PrintStream out) {
        this.api = api;
        this.a = a;
        this.out = out;
        this.json = a.has("--json");
    }

    int run(String verb) {
        switch (verb) {
            case "whoami" -> whoami();
            case "sagas" -> sagas();
            case "saga" -> saga(word(0));
            case "retry", "cancel" -> act(word(0), verb, body());
            case "resolve-payment" -> {
                String outcome = a.required("--outcome").toUpperCase(java.util.Locale.ROOT);
                if (!outcome.equals("CAPTURED") && !outcome.equals("DECLINED")) {
                    throw new CliArgs.Wrong("--outcome must be CAPTURED or DECLINED");
                }
                ObjectNode body = body().put("outcome", outcome);
                act(word(0), "payment-outcome", body);
            }
            case "batch" -> batch();
            case "definitions" -> definitions();
            case "migrate" -> startBatch("migrate", a.required("--to-version"));
            case "incidents" -> incidents();
            case "dead-letters" -> deadLetters();
            case "audit" -> audit();
            default -> throw new CliArgs.Wrong("unknown verb " + verb);
        }
        return 0;
    }

    /**
     * {@code GET /admin/definitions}, one line per version; a version without live sagas that new
     * sagas do not start on may be removed from a later build (docs/operations.md, "Retiring a saga version").
     */
    private void definitions() {
        JsonNode r = api.get("/admin/definitions", Map.of());
        if (print(r)) {
            return;
        }
        for (JsonNode d : r.path("items")) {
            StringBuilder line = new StringBuilder(d.path("type").asText() + " v" + d.path("version").asText() + "  "
                    + d.path("liveTotal").asText() + " live");
            d.path("liveInstances").properties().forEach(e -> line.append(" ").append(e.getKey()).append("=")
                    .append(e.getValue().asText()));
            line.append("  processes=").append(d.path("liveProcesses").asText());
            if (d.path("startsNewInstances").asBoolean()) {
                line.append("  new sagas start here");
            }
            boolean retirable = d.path("liveTotal").asLong() == 0 && !d.path("startsNewInstances").asBoolean();
            line.append(retirable ? "  no live sagas: may be removed from a later build"
                    : d.path("liveTotal").asLong() > 0 && d.path("liveProcesses").asInt() == 0
                            ? "  NO live process has it: deploy a build that does" : "");
            out.println(line);
        }
    }

    private void whoami() {
        JsonNode me = api.get("/admin/whoami", Map.of());
        if (!print(me)) {
            out.println(me.path("name").asText() + " (" + me.path("role").asText() + ")"
                    + (me.path("mayWrite").asBoolean() ? ", may write" : ", read only"));
        }
    }

    private void sagas() {
        Map<String, List<String>> query = filterQuery();
        put(query, "limit", a.one("--limit"));
        put(query, "cursor", a.one("--cursor"));
        JsonNode page = api.get("/admin/sagas", query);
        if (a.has("--all")) {
            ArrayNode all = ((ArrayNode) page.get("items")).deepCopy();
            while (page.hasNonNull("nextCursor") && all.size() < 100_000) {
                query.put("cursor", List.of(page.get("nextCursor").asText()));
                page = api.get("/admin/sagas", query);
                all.addAll((ArrayNode) page.get("items"));
            }
            ObjectNode everything = Json.mapper().createObjectNode();
            everything.set("items", all);
            everything.putNull("nextCursor");
            page = everything;
        }
        if (!print(page)) {
            CliTables.table(out, page.get("items"), SAGA_COLUMNS);
            if (page.hasNonNull("nextCursor")) {
                out.println("more: --cursor " + page.get("nextCursor").asText());
            }
        }
    }

    private void saga(String orderId) {
        JsonNode v = api.get("/admin/sagas/" + orderId, Map.of());
        if (print(v)) {
            return;
        }
        JsonNode o = v.path("order");
        out.println("order " + o.path("orderId").asText() + "  " + o.path("status").asText() + "  customer "
                + o.path("customerId").asText() + "  total " + o.path("totalCents").asText() + " cents "
                + o.path("currency").asText() + "  created " + CliTables.time(o.path("createdAt").asText()));
        JsonNode s = v.path("saga");
        out.println("saga");
        CliTables.fields(out, s, "status", "step", "label", "version", "parkedOn", "parkReason", "parkCount",
                "nextAttemptAt", "stepDeadlineAt", "expiresAt", "updatedAt");
        if (s.hasNonNull("incident")) {
            out.println("incident");
            CliTables.fields(out, s.get("incident"), "cause", "detail", "at");
        }
        out.println("history");
        CliTables.table(out, v.path("history"), "at", "label", "status", "step", "reason");
        out.println("outbox (not yet published)");
        CliTables.table(out, v.path("outbox"), "id", "topic", "messageType", "createdAt");
        out.println("outbox dead letters");
        CliTables.table(out, v.path("deadLetters").path("outbox"), "id", "topic", "messageType", "error");
        JsonNode p = v.path("participants");
        participant("inventory reservations", p.path("inventory"), "key", "status", "lines");
        participant("payment charges", p.path("payment"), "idempotencyKey", "status", "amountCents", "currency");
        out.println("operator actions");
        CliTables.table(out, v.path("audit"), "at", "actor", "action", "outcome", "reason");
    }

    private void participant(String title, JsonNode snapshot, String... columns) {
        String when = snapshot.hasNonNull("fetchedAt") ? " as of " + CliTables.time(snapshot.get("fetchedAt").asText())
                : "";
        out.println(title + (snapshot.path("stale").asBoolean() ? " — STALE (did not answer: "
                + snapshot.path("error").asText() + ")" + when : ""));
        if (snapshot.hasNonNull("value")) {
            CliTables.table(out, snapshot.get("value"), columns);
        } else {
            out.println("(unknown)");
        }
    }

    private void act(String orderId, String action, ObjectNode body) {
        JsonNode r = api.post("/admin/sagas/" + orderId + "/" + action, body);
        if (!print(r)) {
            out.println(r.path("outcome").asText() + ": order " + orderId + " is now "
                    + CliTables.state(r.path("saga")));
        }
    }

    private void batch() {
        String sub = word(0);
        switch (sub) {
            case "start" -> startBatch(a.required("--action"), null);
            case "show" -> showBatch(api.get("/admin/batches/" + word(1), Map.of()));
            case "stop" -> showBatch(api.post("/admin/batches/" + word(1) + "/stop", body()));
            case "list" -> {
                Map<String, List<String>> q = new LinkedHashMap<>();
                put(q, "state", a.one("--state"));
                put(q, "limit", a.one("--limit"));
                JsonNode r = api.get("/admin/batches", q);
                if (!print(r)) {
                    CliTables.table(out, r.get("items"), "batchId", "action", "state", "matched", "processed", "applied",
                            "conflicts", "maxRatePerSecond", "createdAt");
                }
            }
            default -> throw new CliArgs.Wrong("batch takes start, show, stop or list (got " + sub + ")");
        }
    }

    /** {@code POST /admin/batches}: {@code toVersion} (text, checked here) only for a migration. */
    private void startBatch(String action, String toVersion) {
        ObjectNode body = body().put("action", action);
        if (toVersion != null) {
            try {
                body.put("toVersion", Integer.parseInt(toVersion));
            } catch (NumberFormatException e) {
                throw new CliArgs.Wrong("--to-version must be a version number");
            }
        }
        ObjectNode filter = body.putObject("filter");
        for (Map.Entry<String, List<String>> f : filterQuery().entrySet()) {
            if (f.getKey().equals("status")) {
                ArrayNode statuses = filter.putArray("status");
                f.getValue().forEach(v -> List.of(v.split(",")).forEach(one -> statuses.add(one.strip())));
            } else {
                filter.put(f.getKey(), f.getValue().get(0));
            }
        }
        body.put("dryRun", a.has("--dry-run"));
        if (a.one("--rate") != null) {
            try {
                body.put("maxRatePerSecond", Double.parseDouble(a.one("--rate")));
            } catch (NumberFormatException e) {
                throw new CliArgs.Wrong("--rate must be a number of sagas per second");
            }
        }
        JsonNode r = api.post("/admin/batches", body);
        if (!print(r)) {
            out.println((r.path("dryRun").asBoolean() ? "dry run: " : "batch " + r.path("batchId").asText()
                    + " started: ") + r.path("matched").asText() + " sagas match; the first ones:");
            CliTables.table(out, r.path("sample"), SAGA_COLUMNS);
            for (JsonNode p : r.path("plan")) {
                out.println("  " + p.path("orderId").asText() + "  " + (p.path("to").isObject()
                        ? "v" + p.path("from").path("definitionVersion").asText() + " "
                                + p.path("from").path("step").asText() + " -> v"
                                + p.path("to").path("definitionVersion").asText() + " "
                                + p.path("to").path("step").asText()
                        : "stays: " + p.path("refused").asText()));
            }
            if (!r.path("dryRun").asBoolean()) {
                out.println("follow it: ./sagas admin batch show " + r.path("batchId").asText());
            }
        }
    }

    private void showBatch(JsonNode b) {
        if (!print(b)) {
            out.println("batch " + b.path("batchId").asText() + "  " + b.path("action").asText() + "  "
                    + b.path("state").asText() + "  " + b.path("processed").asText() + " of " + b.path("matched").asText()
                    + " done");
            CliTables.fields(out, b, "filter", "reason", "actor", "maxRatePerSecond", "applied", "refused", "conflicts",
                    "notFound", "failed", "createdAt", "finishedAt", "error");
        }
    }

    private void incidents() {
        Map<String, List<String>> q = new LinkedHashMap<>();
        put(q, "cause", a.one("--cause"));
        put(q, "limit", a.one("--limit"));
        put(q, "cursor", a.one("--cursor"));
        JsonNode page = api.get("/admin/incidents", q);
        if (!print(page)) {
            CliTables.table(out, page.get("items"), "orderId", "status", "incidentCause", "incidentDetail", "incidentAt",
                    "step", "version");
        }
    }

    private void deadLetters() {
        String where = word(0);
        if (where.equals("outbox")) {
            if (a.positional.size() == 1) {
                Map<String, List<String>> q = new LinkedHashMap<>();
                put(q, "limit", a.one("--limit"));
                JsonNode r = api.get("/admin/outbox/dead-letters", q);
                if (!print(r)) {
                    out.println(r.path("count").asText() + " outbox rows dead-lettered");
                    CliTables.table(out, r.get("deadLetters"), "id", "aggregateId", "topic", "messageType", "failedAt",
                            "error");
                }
                return;
            }
            String id = word(2);
            switch (word(1)) {
                case "replay" -> done(api.post("/admin/outbox/dead-letters/" + id + "/replay", body()),
                        "outbox row " + id + " is back in the outbox");
                case "discard" -> done(api.delete("/admin/outbox/dead-letters/" + id, body()),
                        "outbox row " + id + " discarded");
                default -> throw new CliArgs.Wrong("dead-letters outbox takes replay ID or discard ID");
            }
        } else if (where.equals("kafka")) {
            if (a.positional.size() == 1) {
                Map<String, List<String>> q = new LinkedHashMap<>();
                put(q, "topic", a.one("--topic"));
                put(q, "limit", a.one("--limit"));
                JsonNode r = api.get("/admin/kafka/dead-letters", q);
                if (!print(r)) {
                    if (r.has("topics")) {
                        CliTables.table(out, r.get("topics"), "topic", "sourceTopic", "records");
                    } else {
                        CliTables.table(out, r.get("records"), "partition", "offset", "key", "timestamp", "reason");
                    }
                }
                return;
            }
            if (!word(1).equals("redrive")) {
                throw new CliArgs.Wrong("dead-letters kafka takes redrive --topic T --partition P --offset O");
            }
            ObjectNode body = body().put("topic", a.required("--topic"));
            try {
                body.put("partition", Integer.parseInt(a.required("--partition")));
                body.put("offset", Long.parseLong(a.required("--offset")));
            } catch (NumberFormatException e) {
                throw new CliArgs.Wrong("--partition and --offset must be numbers");
            }
            body.put("force", a.has("--force"));
            JsonNode r = api.post("/admin/kafka/dead-letters/redrive", body);
            if (!print(r)) {
                out.println("redriven to " + r.path("to").path("topic").asText() + "/" + r.path("to").path("partition")
                        .asText() + "@" + r.path("to").path("offset").asText());
            }
        } else {
            throw new CliArgs.Wrong("dead-letters takes outbox or kafka (got " + where + ")");
        }
    }

    private void audit() {
        Map<String, List<String>> q = new LinkedHashMap<>();
        put(q, "limit", a.one("--limit"));
        put(q, "target", a.one("--target"));
        put(q, "actor", a.one("--actor"));
        put(q, "action", a.one("--action"));
        put(q, "batchId", a.one("--batch"));
        JsonNode r = api.get("/admin/audit", q);
        if (!print(r)) {
            CliTables.table(out, r.get("items"), "at", "actor", "role", "action", "target", "outcome", "reason");
        }
    }

    private void done(JsonNode answer, String message) {
        if (!print(answer)) {
            out.println(message);
        }
    }

    /** With --json, prints the API's answer and says so. */
    private boolean print(JsonNode answer) {
        if (json) {
            out.println(answer.toPrettyString());
        }
        return json;
    }

    private ObjectNode body() {
        ObjectNode body = Json.mapper().createObjectNode();
        String reason = a.one("--reason");
        if (reason != null) {
            body.put("reason", reason);
        }
        return body;
    }

    private Map<String, List<String>> filterQuery() {
        Map<String, List<String>> q = new LinkedHashMap<>();
        AdminCli.FILTERS.forEach((option, param) -> {
            if (!a.all(option).isEmpty()) {
                q.put(param, a.all(option));
            }
        });
        return q;
    }

    private static void put(Map<String, List<String>> q, String name, String value) {
        if (value != null) {
            q.put(name, List.of(value));
        }
    }

    private String word(int i) {
        if (a.positional.size() <= i) {
            throw new CliArgs.Wrong("missing argument; see --help");
        }
        return a.positional.get(i);
    }
}
