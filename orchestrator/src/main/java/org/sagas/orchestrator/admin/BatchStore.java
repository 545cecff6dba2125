package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.core.type.TypeReference;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ordering.OrderCursor;

/**
 * The {@code admin_batch} table. A batch is RUNNING until it completes, fails or is stopped; while
 * RUNNING one process at a time holds its lease (taken with {@code SKIP LOCKED}, renewed as it
 * goes), so a batch whose process died is taken over once the lease ran out. Every write of a
 * runner names it and checks the state: a stopped batch stays stopped. Thread-safe.
 */
final class BatchStore {
    private static final String COLUMNS = "batch_id, action, filter::text AS filter, reason, actor, max_rate, state,"
            + " matched, snapshot_at, cursor_created_at, cursor_id, runner, lease_until, error, created_at, updated_at,"
            + " finished_at, to_version";

    private final Jdbi jdbi;

    BatchStore(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    static void insert(Handle h, Batch b) {
        h.createUpdate("INSERT INTO admin_batch (batch_id, action, filter, reason, actor, max_rate, state, matched,"
                        + " snapshot_at, to_version) VALUES (:id, :action, CAST(:filter AS jsonb), :reason, :actor, :rate,"
                        + " 'RUNNING', :matched, :snapshot, :toVersion)")
                .bind("toVersion", b.toVersion())
                .bind("id", b.batchId()).bind("action", b.action()).bind("filter", Json.write(b.filter()))
                .bind("reason", b.reason()).bind("actor", b.actor()).bind("rate", b.maxRate())
                .bind("matched", b.matched()).bind("snapshot", Timestamp.from(b.snapshotAt())).execute();
    }

    Optional<Batch> find(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT " + COLUMNS + " FROM admin_batch WHERE batch_id = :id")
                .bind("id", id).map((rs, ctx) -> batch(rs)).findOne());
    }

    /** Newest first; {@code state} null for any. */
    List<Batch> list(String state, int limit) {
        return jdbi.withHandle(h -> h.createQuery("SELECT " + COLUMNS + " FROM admin_batch"
                        + (state == null ? "" : " WHERE state = :state") + " ORDER BY created_at DESC LIMIT :limit")
                .bind("limit", limit).bindMap(state == null ? Map.of() : Map.of("state", state))
                .map((rs, ctx) -> batch(rs)).list());
    }

    /** Takes the oldest running batch nobody holds (or whose holder's lease ran out), for {@code runner}. */
    Optional<Batch> claim(String runner, Instant now, Instant leaseUntil) {
        return jdbi.withHandle(h -> h.createQuery("UPDATE admin_batch SET runner = :runner, lease_until = :lease,"
                        + " updated_at = clock_timestamp() WHERE batch_id = (SELECT batch_id FROM admin_batch"
                        + " WHERE state = 'RUNNING' AND (lease_until IS NULL OR lease_until < :now)"
                        + " ORDER BY lease_until NULLS FIRST LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING " + COLUMNS)
                .bind("runner", runner).bind("lease", Timestamp.from(leaseUntil)).bind("now", Timestamp.from(now))
                .map((rs, ctx) -> batch(rs)).findOne());
    }

    /**
     * Extends {@code runner}'s lease and moves the cursor (null: keep it).
     *
     * @return false when the batch is no longer running or no longer {@code runner}'s: stop
     */
    boolean renew(UUID id, String runner, Instant leaseUntil, OrderCursor cursor) {
        return jdbi.withHandle(h -> h.createUpdate("UPDATE admin_batch SET lease_until = :lease,"
                        + " cursor_created_at = COALESCE(CAST(:at AS timestamptz), cursor_created_at),"
                        + " cursor_id = COALESCE(CAST(:cid AS uuid), cursor_id),"
                        + " updated_at = clock_timestamp() WHERE batch_id = :id AND runner = :runner AND state = 'RUNNING'")
                .bind("lease", Timestamp.from(leaseUntil)).bind("runner", runner).bind("id", id)
                .bind("at", cursor == null ? null : Timestamp.from(cursor.createdAt()))
                .bind("cid", cursor == null ? null : cursor.orderId()).execute() == 1);
    }

    /** Ends {@code runner}'s batch as COMPLETED or FAILED; false when it was stopped meanwhile. */
    boolean finish(UUID id, String runner, String state, String error) {
        return jdbi.withHandle(h -> h.createUpdate("UPDATE admin_batch SET state = :state, error = :error,"
                        + " finished_at = clock_timestamp(), updated_at = clock_timestamp(), lease_until = NULL"
                        + " WHERE batch_id = :id AND runner = :runner AND state = 'RUNNING'")
                .bind("state", state).bind("error", error).bind("id", id).bind("runner", runner).execute() == 1);
    }

    /** Gives the lease back so another process (or this one, restarted) takes the batch over at once. */
    void release(UUID id, String runner) {
        jdbi.useHandle(h -> h.createUpdate("UPDATE admin_batch SET lease_until = NULL, runner = NULL,"
                        + " updated_at = clock_timestamp() WHERE batch_id = :id AND runner = :runner")
                .bind("id", id).bind("runner", runner).execute());
    }

    /** Stops a running batch (whoever runs it stops at its next step); false when it was not running. */
    static boolean stop(Handle h, UUID id) {
        return h.createUpdate("UPDATE admin_batch SET state = 'STOPPED', finished_at = clock_timestamp(),"
                        + " updated_at = clock_timestamp(), lease_until = NULL WHERE batch_id = :id AND state = 'RUNNING'")
                .bind("id", id).execute() == 1;
    }

    private static Batch batch(ResultSet rs) throws SQLException {
        Map<String, Object> filter = readFilter(rs.getString("filter"));
        Timestamp cursorAt = rs.getTimestamp("cursor_created_at");
        return new Batch(rs.getObject("batch_id", UUID.class), rs.getString("action"), filter, rs.getString("reason"),
                rs.getString("actor"), rs.getDouble("max_rate"), rs.getString("state"), rs.getInt("matched"),
                instant(rs, "snapshot_at"),
                cursorAt == null ? null : new OrderCursor(cursorAt.toInstant(), rs.getObject("cursor_id", UUID.class)),
                rs.getString("runner"), instant(rs, "lease_until"), rs.getString("error"), instant(rs, "created_at"),
                instant(rs, "updated_at"), instant(rs, "finished_at"), (Integer) rs.getObject("to_version"));
    }

    private static Map<String, Object> readFilter(String json) {
        try {
            return Json.mapper().readValue(json, new TypeReference<Map<String, Object>>() {});
        } catch (java.io.IOException e) {
            throw new IllegalStateException("unreadable batch filter " + json, e);
        }
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }
}
