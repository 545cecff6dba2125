package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.InvalidRequest;
import org.sagas.orchestrator.ordering.OrderFilter;
import org.sagas.orchestrator.ordering.OrderStore;

/**
 * Creating, showing and stopping batches (docs/operations-admin.md, "Acting on many"). A dry run counts and samples and
 * writes nothing; a real one is stored with its audit row in one transaction and handed to the
 * {@link BatchRunner}. Thread-safe.
 */
final class Batches {
    static final int SAMPLE = 10;
    static final double DEFAULT_RATE = 50;

    /**
     * What a batch request asked for, validated.
     *
     * @param toVersion for a migration: the saga definition version to move to; else null
     */
    record Request(String action, OrderFilter filter, boolean dryRun, double maxRate, String reason,
            Integer toVersion) {}

    private final Jdbi jdbi;
    private final BatchStore store;
    private final OrderStore orders;
    private final AuditLog audit;
    private final BatchRunner runner;
    private final Clock clock;
    private final SagaActions actions;

    Batches(Jdbi jdbi, BatchStore store, OrderStore orders, AuditLog audit, BatchRunner runner, Clock clock,
            SagaActions actions) {
        this.actions = actions;
        this.jdbi = jdbi;
        this.store = store;
        this.orders = orders;
        this.audit = audit;
        this.runner = runner;
        this.clock = clock;
    }

    /** @throws InvalidRequest naming the field that is wrong */
    static Request parse(JsonNode body) {
        if (body == null || !body.isObject()) {
            throw new InvalidRequest("body", "must be a JSON object with action, filter, reason");
        }
        for (var it = body.fieldNames(); it.hasNext();) {
            String f = it.next();
            if (!List.of("action", "filter", "dryRun", "maxRatePerSecond", "reason", "toVersion").contains(f)) {
                throw new InvalidRequest(f, "unknown field; a batch has action, filter, dryRun, maxRatePerSecond,"
                        + " reason, toVersion");
            }
        }
        String action = body.path("action").asText("");
        if (!action.equals("retry") && !action.equals("cancel") && !action.equals(Batch.MIGRATE)) {
            throw new InvalidRequest("action", "must be retry, cancel or migrate");
        }
        JsonNode to = body.get("toVersion");
        if (action.equals(Batch.MIGRATE) != (to != null)) {
            throw new InvalidRequest("toVersion", action.equals(Batch.MIGRATE)
                    ? "a migration needs the version to move to" : "only a migration takes it");
        }
        if (to != null && (!to.isInt() || to.asInt() < 1 || to.asInt() > 1000)) {
            throw new InvalidRequest("toVersion", "must be an integer from 1 to 1000");
        }
        OrderFilter filter = FilterParams.fromJson(body.get("filter"));
        if (FilterParams.isEmpty(filter)) {
            throw new InvalidRequest("filter", "a batch needs at least one criterion (it would act on every order)");
        }
        JsonNode dry = body.get("dryRun");
        if (dry != null && !dry.isBoolean()) {
            throw new InvalidRequest("dryRun", "must be true or false");
        }
        JsonNode rate = body.get("maxRatePerSecond");
        if (rate != null && (!rate.isNumber() || !(rate.asDouble() > 0) || rate.asDouble() > 1000)) {
            throw new InvalidRequest("maxRatePerSecond", "must be a number above 0, at most 1000");
        }
        String reason = AdminRequests.reason(body, true);
        return new Request(action, filter, dry != null && dry.asBoolean(), rate == null ? DEFAULT_RATE : rate.asDouble(),
                reason, to == null ? null : to.asInt());
    }

    /** Counts and samples; for a real batch also stores it and wakes the runner. */
    Map<String, Object> create(Operator who, Request r) {
        int matched = orders.count(r.filter());
        if (matched >= OrderStore.COUNT_CAP) {
            throw new InvalidRequest("filter", "matches " + OrderStore.COUNT_CAP + " orders or more; narrow it");
        }
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("batchId", null);
        answer.put("dryRun", r.dryRun());
        answer.put("action", r.action());
        answer.put("matched", matched);
        List<org.sagas.orchestrator.ordering.OrderSummary> sample = orders.search(r.filter(), null, SAMPLE, false);
        answer.put("sample", sample);
        if (r.toVersion() != null) {
            answer.put("toVersion", r.toVersion());
            // What each sampled order would become, or why it would stay (docs/operations-admin.md).
            answer.put("plan", sample.stream().map(o -> actions.planMigration(o.orderId(), r.toVersion())).toList());
        }
        if (r.dryRun()) {
            return answer;
        }
        UUID id = UUID.randomUUID();
        Instant now = clock.instant();
        Batch batch = new Batch(id, r.action(), FilterParams.toJson(r.filter()), r.reason(), who.name(), r.maxRate(),
                Batch.RUNNING, matched, now, null, null, null, null, now, now, null, r.toVersion());
        jdbi.useTransaction(h -> {
            BatchStore.insert(h, batch);
            AuditLog.record(h, new AuditLog.Line(who, "batch-start", "batch:" + id, r.reason(), "APPLIED",
                    Json.write(r.toVersion() == null ? Map.of("action", r.action(), "filter", batch.filter(),
                            "matched", matched, "maxRatePerSecond", r.maxRate()) : Map.of("action", r.action(),
                            "filter", batch.filter(), "matched", matched, "maxRatePerSecond", r.maxRate(),
                            "toVersion", r.toVersion())), null));
        });
        runner.wake();
        answer.put("batchId", id);
        answer.put("maxRatePerSecond", r.maxRate());
        return answer;
    }

    Optional<Map<String, Object>> view(UUID id) {
        return store.find(id).map(this::view);
    }

    List<Map<String, Object>> list(String state, int limit) {
        return store.list(state, limit).stream().map(this::view).toList();
    }

    /** @return the batch after, empty when there is none; refused (409) when it is not running */
    ActionOnBatch stop(Operator who, UUID id, String reason) {
        Optional<Batch> found = store.find(id);
        if (found.isEmpty()) {
            audit.record(new AuditLog.Line(who, "batch-stop", "batch:" + id, reason, "NOT_FOUND", null, null));
            return new ActionOnBatch(404, null);
        }
        boolean stopped = jdbi.inTransaction(h -> {
            boolean now = BatchStore.stop(h, id);
            AuditLog.record(h, new AuditLog.Line(who, "batch-stop", "batch:" + id, reason, now ? "APPLIED" : "REFUSED",
                    now ? null : "the batch is " + found.get().state(), null));
            return now;
        });
        return new ActionOnBatch(stopped ? 200 : 409, view(store.find(id).orElseThrow()));
    }

    /** The answer to a stop: its status and the batch as it stands. */
    record ActionOnBatch(int status, Map<String, Object> batch) {}

    private Map<String, Object> view(Batch b) {
        Map<String, Long> outcomes = audit.outcomes(b.batchId());
        long processed = outcomes.values().stream().mapToLong(Long::longValue).sum();
        Map<String, Object> v = new LinkedHashMap<>();
        v.put("batchId", b.batchId());
        v.put("action", b.action());
        v.put("toVersion", b.toVersion());
        v.put("state", b.state());
        v.put("filter", b.filter());
        v.put("reason", b.reason());
        v.put("actor", b.actor());
        v.put("maxRatePerSecond", b.maxRate());
        v.put("matched", b.matched());
        v.put("processed", processed);
        v.put("applied", outcomes.getOrDefault("APPLIED", 0L));
        v.put("refused", outcomes.getOrDefault("REFUSED", 0L));
        v.put("conflicts", outcomes.getOrDefault("CONFLICT", 0L));
        v.put("notFound", outcomes.getOrDefault("NOT_FOUND", 0L));
        v.put("failed", outcomes.getOrDefault("FAILED", 0L));
        v.put("snapshotAt", b.snapshotAt());
        v.put("createdAt", b.createdAt());
        v.put("updatedAt", b.updatedAt());
        v.put("finishedAt", b.finishedAt());
        v.put("runner", b.runner());
        v.put("error", b.error());
        return v;
    }
}
