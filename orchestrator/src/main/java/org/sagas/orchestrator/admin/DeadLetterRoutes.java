package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.InvalidRequest;

/**
 * Dead letters in one place: outbox rows the broker refused ({@code /admin/outbox/dead-letters},
 * replay or discard) and records consumers set aside on Kafka ({@code /admin/kafka/dead-letters},
 * list with their {@code dlt-reason}, redrive one to its source topic). Every action is audited;
 * a record already redriven is refused unless {@code force}. Thread-safe.
 */
final class DeadLetterRoutes {
    private final OutboxDeadLetterPort outbox;
    private final KafkaDeadLetters kafka;
    private final AuditLog audit;
    private final Guard guard;

    DeadLetterRoutes(OutboxDeadLetterPort outbox, KafkaDeadLetters kafka, AuditLog audit, Guard guard) {
        this.outbox = outbox;
        this.kafka = kafka;
        this.audit = audit;
        this.guard = guard;
    }

    void register(RoutesConfig routes) {
        routes.get("/admin/outbox/dead-letters", ctx -> {
            int limit = AdminRequests.limit(ctx, 100, 1000);
            AdminServer.json(ctx, 200, Map.of("count", outbox.count(), "deadLetters", outbox.list(limit)));
        });
        routes.post("/admin/outbox/dead-letters/{id}/replay", guard.write("outbox-replay", DeadLetterRoutes::outboxTarget,
                ctx -> outboxAction(ctx, "outbox-replay", outbox.replay(outboxId(ctx)))));
        routes.delete("/admin/outbox/dead-letters/{id}", guard.write("outbox-discard", DeadLetterRoutes::outboxTarget,
                ctx -> outboxAction(ctx, "outbox-discard", outbox.discard(outboxId(ctx)))));
        routes.get("/admin/kafka/dead-letters", this::kafkaList);
        routes.post("/admin/kafka/dead-letters/redrive", guard.write("kafka-redrive", ctx -> "kafka", this::redrive));
    }

    private void outboxAction(Context ctx, String action, boolean found) {
        String reason = AdminRequests.reason(AdminRequests.body(ctx), true);
        audit.record(new AuditLog.Line(Guard.who(ctx), action, outboxTarget(ctx), reason,
                found ? "APPLIED" : "NOT_FOUND", null, null));
        if (!found) {
            throw new AdminRefusal(404, "not-found", "No such dead letter", "no dead-lettered outbox row "
                    + ctx.pathParam("id"), Map.of());
        }
        ctx.status(204);
    }

    private void kafkaList(Context ctx) {
        String topic = ctx.queryParam("topic");
        if (topic == null || topic.isBlank()) {
            AdminServer.json(ctx, 200, Map.of("topics", kafka.topics()));
            return;
        }
        int limit = AdminRequests.limit(ctx, 100, 1000);
        String dlt = deadLetterTopic(topic);
        try {
            AdminServer.json(ctx, 200, Map.of("topic", dlt, "records", kafka.records(dlt, limit)));
        } catch (IllegalArgumentException e) {
            throw new AdminRefusal(404, "not-found", "No such dead-letter topic", e.getMessage(), Map.of());
        }
    }

    private void redrive(Context ctx) {
        JsonNode body = AdminRequests.body(ctx);
        AdminRequests.onlyFields(body, "topic", "partition", "offset", "reason", "force");
        String topic = body.path("topic").asText("");
        if (topic.isBlank()) {
            throw new InvalidRequest("topic", "is required: the dead-letter topic (or its source topic)");
        }
        if (!body.path("partition").canConvertToInt() || body.path("partition").asInt() < 0) {
            throw new InvalidRequest("partition", "is required: a partition number");
        }
        if (!body.path("offset").canConvertToLong() || body.path("offset").asLong() < 0) {
            throw new InvalidRequest("offset", "is required: the record's offset");
        }
        String dlt = deadLetterTopic(topic);
        int partition = body.get("partition").asInt();
        long offset = body.get("offset").asLong();
        String reason = AdminRequests.reason(body, true);
        String target = "kafka:" + dlt + "/" + partition + "@" + offset;
        Operator who = Guard.who(ctx);
        var record = kafka.record(dlt, partition, offset);
        if (record.isEmpty()) {
            audit.record(new AuditLog.Line(who, "kafka-redrive", target, reason, "NOT_FOUND", null, null));
            throw new AdminRefusal(404, "not-found", "No such record", "no record at " + dlt + "/" + partition + "@"
                    + offset, Map.of());
        }
        if (audit.applied("kafka-redrive", target) && !body.path("force").asBoolean(false)) {
            audit.record(new AuditLog.Line(who, "kafka-redrive", target, reason, "REFUSED", "redriven before", null));
            throw new AdminRefusal(409, "already-redriven", "Redriven before", "this record was redriven before"
                    + " (see GET /admin/audit?target=" + target + "); send \"force\": true to send it again",
                    Map.of());
        }
        KafkaDeadLetters.Redriven to = kafka.redrive(record.get());
        Map<String, Object> answer = new LinkedHashMap<>();
        answer.put("from", Map.of("topic", dlt, "partition", partition, "offset", offset));
        answer.put("to", to);
        audit.record(new AuditLog.Line(who, "kafka-redrive", target, reason, "APPLIED", Json.write(answer), null));
        AdminServer.json(ctx, 200, answer);
    }

    /** Accepts the dead-letter topic or its source topic's name. */
    private static String deadLetterTopic(String topic) {
        return topic.endsWith(".dlt") ? topic : topic + ".dlt";
    }

    private static long outboxId(Context ctx) {
        try {
            return Long.parseLong(ctx.pathParam("id"));
        } catch (NumberFormatException e) {
            throw new InvalidRequest("id", "must be an outbox row id (integer)");
        }
    }

    private static String outboxTarget(Context ctx) {
        return "outbox:" + ctx.pathParam("id");
    }
}
