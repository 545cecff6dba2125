package org.sagas.orchestrator.admin;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;

/**
 * The audit table ({@code admin_audit}): rows are only ever inserted. An action that writes records
 * its row in the same transaction as its effect, so the trail and the effect cannot disagree; a
 * refusal records its own. Stateless and thread-safe.
 */
final class AuditLog {
    /** What a row says, before it has an id and a time. */
    record Line(Operator who, String action, String target, String reason, String outcome, String detail,
            UUID batchId) {}

    /** Which rows to list: each criterion optional; {@code beforeId} pages back in time. */
    record Query(String target, String actor, String action, UUID batchId, Long beforeId, int limit) {}

    private final Jdbi jdbi;

    AuditLog(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    static void record(Handle h, Line line) {
        h.createUpdate("INSERT INTO admin_audit (actor, role, action, target, reason, outcome, detail, batch_id)"
                        + " VALUES (:actor, :role, :action, :target, :reason, :outcome, :detail, CAST(:batch AS uuid))")
                .bind("actor", line.who().name()).bind("role", line.who().role().text()).bind("action", line.action())
                .bind("target", line.target()).bind("reason", line.reason()).bind("outcome", line.outcome())
                .bind("detail", line.detail()).bind("batch", line.batchId()).execute();
    }

    void record(Line line) {
        jdbi.useHandle(h -> record(h, line));
    }

    /** Whether batch {@code batchId} already has a row for {@code target}: it acted on it before. */
    boolean batchDid(UUID batchId, String target) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM admin_audit WHERE batch_id = :b"
                + " AND target = :t").bind("b", batchId).bind("t", target).mapTo(Long.class).one() > 0);
    }

    /** Whether {@code action} on {@code target} was ever applied. */
    boolean applied(String action, String target) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM admin_audit WHERE target = :t"
                + " AND action = :a AND outcome = 'APPLIED'").bind("t", target).bind("a", action)
                .mapTo(Long.class).one() > 0);
    }

    /** Newest first. Each criterion has an index (V7). */
    List<AuditEntry> list(Query q) {
        List<String> and = new ArrayList<>();
        if (q.target() != null) {
            and.add("target = :target");
        }
        if (q.actor() != null) {
            and.add("actor = :actor");
        }
        if (q.action() != null) {
            and.add("action = :action");
        }
        if (q.batchId() != null) {
            and.add("batch_id = :batch");
        }
        if (q.beforeId() != null) {
            and.add("id < :before");
        }
        String sql = "SELECT id, at, actor, role, action, target, reason, outcome, detail, batch_id FROM admin_audit"
                + (and.isEmpty() ? "" : " WHERE " + String.join(" AND ", and)) + " ORDER BY id DESC LIMIT :limit";
        return jdbi.withHandle(h -> {
            org.jdbi.v3.core.statement.Query query = h.createQuery(sql).bind("limit", q.limit());
            bindIf(query, "target", q.target());
            bindIf(query, "actor", q.actor());
            bindIf(query, "action", q.action());
            bindIf(query, "batch", q.batchId());
            bindIf(query, "before", q.beforeId());
            return query.map((rs, ctx) -> entry(rs)).list();
        });
    }

    /** Counts of a batch's rows by outcome. */
    java.util.Map<String, Long> outcomes(UUID batchId) {
        java.util.Map<String, Long> counts = new java.util.TreeMap<>();
        jdbi.useHandle(h -> h.createQuery("SELECT outcome, count(*) FROM admin_audit WHERE batch_id = :b"
                        + " GROUP BY outcome").bind("b", batchId)
                .map((rs, ctx) -> java.util.Map.entry(rs.getString(1), rs.getLong(2)))
                .forEach(e -> counts.put(e.getKey(), e.getValue())));
        return counts;
    }

    private static void bindIf(org.jdbi.v3.core.statement.Query query, String name, Object value) {
        if (value != null) {
            query.bind(name, value);
        }
    }

    private static AuditEntry entry(ResultSet rs) throws SQLException {
        return new AuditEntry(rs.getLong("id"), rs.getTimestamp("at").toInstant(), rs.getString("actor"),
                rs.getString("role"), rs.getString("action"), rs.getString("target"), rs.getString("reason"),
                rs.getString("outcome"), rs.getString("detail"), rs.getObject("batch_id", UUID.class));
    }
}
