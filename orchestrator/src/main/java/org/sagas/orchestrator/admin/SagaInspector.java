package org.sagas.orchestrator.admin;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.ordering.OrderStore;

/**
 * Everything about one order an operator needs to decide: the order, its saga (incident
 * included), the whole history with full reasons, its outbox rows not yet published and its
 * dead-lettered ones, the operators' actions on it, and what the participants hold for it now.
 * Thread-safe.
 */
final class SagaInspector {
    /** The saga row as stored. */
    record Saga(UUID sagaId, String type, int definitionVersion, String status, String step, String label,
            int version, String parkedOn,
            String parkReason, int parkCount, Instant nextAttemptAt, Instant stepDeadlineAt, Instant expiresAt,
            Instant createdAt, Instant updatedAt, Incident incident) {}

    /** Why the saga cannot go on without an operator (docs/design.md, "No saga left behind"), or null. */
    record Incident(String cause, String detail, Instant at) {}

    /** One transition, as the engine wrote it. */
    /** One transition: its stable code (what customers see) and its full reason (for operators). */
    record Step(long id, Instant at, String status, String step, String label, String code, String reason) {}

    /** An outbox row of the order still to be published (or dead-lettered). */
    record OutboxRow(long id, String topic, String messageType, UUID messageId, Instant createdAt, String error) {}

    private final Jdbi jdbi;
    private final OrderStore orders;
    private final AuditLog audit;
    private final ParticipantSnapshots participants;

    SagaInspector(Jdbi jdbi, OrderStore orders, AuditLog audit, ParticipantSnapshots participants) {
        this.jdbi = jdbi;
        this.orders = orders;
        this.audit = audit;
        this.participants = participants;
    }

    /** The whole picture of {@code orderId}; empty when there is no such order. */
    Optional<Map<String, Object>> inspect(UUID orderId) {
        Optional<OrderStore.OrderView> order = orders.find(orderId);
        if (order.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Object> view = new LinkedHashMap<>();
        OrderStore.OrderView o = order.get();
        Map<String, Object> orderPart = new LinkedHashMap<>();
        orderPart.put("orderId", o.orderId());
        orderPart.put("status", o.status());
        orderPart.put("customerId", o.customerId());
        orderPart.put("currency", o.currency());
        orderPart.put("totalCents", o.totalCents());
        orderPart.put("lines", o.lines());
        orderPart.put("createdAt", o.createdAt());
        view.put("order", orderPart);
        jdbi.useHandle(h -> {
            view.put("saga", saga(h, orderId).orElse(null));
            view.put("history", history(h, orderId));
            view.put("outbox", pendingOutbox(h, orderId.toString()));
            view.put("deadLetters", Map.of("outbox", deadLetters(h, orderId.toString())));
        });
        view.put("participants", participants.of(orderId));
        view.put("audit", audit.list(new AuditLog.Query(orderId.toString(), null, null, null, null, 50)));
        return Optional.of(view);
    }

    private static Optional<Saga> saga(Handle h, UUID id) {
        return h.createQuery("SELECT saga_id, saga_type, definition_version, status, step, label, version,"
                        + " parked_on, park_reason,"
                        + " park_count, next_attempt_at, step_deadline_at, expires_at, created_at, updated_at,"
                        + " incident_cause, incident_detail, incident_at FROM saga_instance WHERE saga_id = :id")
                .bind("id", id)
                .map((rs, ctx) -> new Saga(rs.getObject("saga_id", UUID.class), rs.getString("saga_type"),
                        rs.getInt("definition_version"), rs.getString("status"), rs.getString("step"), rs.getString("label"), rs.getInt("version"),
                        rs.getString("parked_on"), rs.getString("park_reason"), rs.getInt("park_count"),
                        instant(rs, "next_attempt_at"), instant(rs, "step_deadline_at"), instant(rs, "expires_at"),
                        instant(rs, "created_at"), instant(rs, "updated_at"),
                        rs.getString("incident_cause") == null ? null : new Incident(rs.getString("incident_cause"),
                                rs.getString("incident_detail"), instant(rs, "incident_at"))))
                .findOne();
    }

    private static List<Step> history(Handle h, UUID id) {
        return h.createQuery("SELECT id, at, status, step, label, reason_code, reason FROM saga_history"
                        + " WHERE saga_id = :id"
                        + " ORDER BY id").bind("id", id)
                .map((rs, ctx) -> new Step(rs.getLong("id"), instant(rs, "at"), rs.getString("status"),
                        rs.getString("step"), rs.getString("label"), rs.getString("reason_code"), rs.getString("reason")))
                .list();
    }

    /** Through the outbox's (shard, id) index: the shard is derived from the aggregate as the table does. */
    private static List<OutboxRow> pendingOutbox(Handle h, String aggregate) {
        // Every message waiting, a row's further ones included (V11: one row per transaction and order).
        return h.createQuery("SELECT id, topic, message_type, message_id, created_at FROM outbox_message"
                        + " WHERE shard = (abs(hashtext(:a)) % 64)::smallint AND aggregate_id = :a ORDER BY id, part")
                .bind("a", aggregate)
                .map((rs, ctx) -> new OutboxRow(rs.getLong("id"), rs.getString("topic"), rs.getString("message_type"),
                        rs.getObject("message_id", UUID.class), instant(rs, "created_at"), null))
                .list();
    }

    private static List<OutboxRow> deadLetters(Handle h, String aggregate) {
        return h.createQuery("SELECT id, topic, message_type, message_id, created_at, error FROM outbox_dead_letter"
                        + " WHERE aggregate_id = :a ORDER BY id").bind("a", aggregate)
                .map((rs, ctx) -> new OutboxRow(rs.getLong("id"), rs.getString("topic"), rs.getString("message_type"),
                        rs.getObject("message_id", UUID.class), instant(rs, "created_at"), rs.getString("error")))
                .list();
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        java.sql.Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }
}
