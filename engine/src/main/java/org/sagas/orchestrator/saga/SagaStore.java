package org.sagas.orchestrator.saga;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.StatementContext;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.sagas.orchestrator.persistence.OutboxWriter;
import org.sagas.orchestrator.tracing.Traceparent;

/** Reads and writes saga instances, their history and their outbox rows. Stateless, thread-safe. */
final class SagaStore {
    private static final String COLUMNS = "saga_id, saga_type, definition_version, status, step, label, version, data::text AS data,"
            + " parked_on, park_reason, park_count, next_attempt_at, step_deadline_at, expires_at, created_at,"
            + " completed_steps, step_retries, cause_code, cause_detail, incident_cause, incident_detail, incident_at,"
            + " traceparent";

    /**
     * A row as stored, before its data is read with the definition's type; {@code traceparent} is
     * the trace that created the saga (null when it was not traced).
     */
    record Row(UUID id, SagaVersion definition, SagaStatus status, String step, String label, int version, String data,
            String parkedOn, String parkReason, int parkCount, Instant nextAttemptAt, Instant stepDeadlineAt,
            Instant expiresAt, Instant createdAt, int completedSteps, int stepRetries, Reason cause,
            Incident incident, String traceparent) {

        <D> SagaInstance<D> as(SagaDefinition<D> def) {
            return new SagaInstance<>(id, definition, status, def.indexOf(step), step, label, version,
                    Json.read(data, def.dataType()), parkedOn, parkReason, parkCount, nextAttemptAt, stepDeadlineAt,
                    expiresAt, createdAt, completedSteps, stepRetries, cause, incident);
        }
    }

    private static final String HISTORY = "INSERT INTO saga_history (saga_id, status, step, label, reason_code, reason)"
            + " SELECT saga_id, :status, :step, :label, :reasonCode, :reason";

    private SagaStore() {}

    /** Inserts the instance, its first history row and its outbox rows: {@code t}'s messages, then {@code events}. */
    static <D> void insert(Handle h, Transition<D> t, List<OutgoingMessage> events) {
        SagaInstance<D> s = t.after();
        // One round trip for the instance and its first history row. The trace that creates the saga
        // (null while tracing is off) is kept, so a later resume can link to it.
        h.createUpdate("WITH created AS (INSERT INTO saga_instance (saga_id, saga_type, definition_version, status,"
                        + " step, label, version, data, parked_on, park_reason, park_count, next_attempt_at,"
                        + " step_deadline_at, expires_at, created_at, completed_steps, step_retries, traceparent)"
                        + " VALUES (:id, :type, :definitionVersion, :status, :step, :label, :version, CAST(:data AS jsonb), :parkedOn, :parkReason, :parkCount, :next,"
                        + " :stepDeadline, :expires, :created, :completed, :retries, :traceparent) RETURNING saga_id) "
                        + HISTORY + " FROM created")
                .bind("id", s.id()).bind("type", s.type()).bind("definitionVersion", s.definition().version())
                .bind("created", ts(s.createdAt()))
                .bind("traceparent", Traceparent.current())
                .bindMap(reason(t.reason())).bindMap(values(s)).execute();
        OutboxWriter.append(h, outgoing(t, events), s.id().toString());
    }

    /**
     * Deletes an instance that is still at {@code version} with its history, as if it had never been
     * started (a submission withdrawn before its first call: it wrote no outbox row).
     *
     * @return false when the instance had moved on (or was gone)
     */
    static boolean withdraw(Handle h, UUID id, int version) {
        return h.createQuery("WITH gone AS (DELETE FROM saga_instance WHERE saga_id = :id AND version = :version"
                        + " RETURNING saga_id), history AS (DELETE FROM saga_history WHERE saga_id IN (SELECT saga_id"
                        + " FROM gone)) SELECT count(*) FROM gone")
                .bind("id", id).bind("version", version).mapTo(Long.class).one() == 1;
    }

    /** Writes {@code t} under its version check, with its history row and outbox rows ({@link #insert}). */
    static <D> void update(Handle h, Transition<D> t, List<OutgoingMessage> events) {
        t.before().status().checkMoveTo(t.after().status());
        SagaInstance<D> s = t.after();
        // The version check and the history row in one round trip: no row moved, no history written;
        // the count is of rows moved, since a retry writes no history.
        int rows = h.createQuery("WITH moved AS (UPDATE saga_instance SET status = :status, step = :step,"
                        + " definition_version = :definitionVersion,"
                        + " label = :label, label_at = CASE WHEN label = :label THEN label_at ELSE now() END,"
                        + " version = :version, data = CAST(:data AS jsonb), parked_on = :parkedOn,"
                        + " park_reason = :parkReason, park_count = :parkCount, next_attempt_at = :next,"
                        + " step_deadline_at = :stepDeadline, expires_at = :expires, completed_steps = :completed,"
                        + " step_retries = :retries, cause_code = :causeCode, cause_detail = :causeDetail,"
                        + " incident_cause = :incidentCause, incident_detail = :incidentDetail,"
                        + " incident_at = :incidentAt, updated_at = now()"
                        + " WHERE saga_id = :id AND version = :expected RETURNING saga_id), written AS (" + HISTORY
                        + " FROM moved WHERE :changed) SELECT count(*) FROM moved")
                .bind("id", s.id()).bind("expected", t.before().version()).bind("changed", changesState(t))
                .bindMap(reason(t.reason()))
                .bindMap(values(s)).mapTo(Integer.class).one();
        if (rows != 1) {
            throw new ConcurrentSagaUpdate(s.id(), t.before().version());
        }
        OutboxWriter.append(h, outgoing(t, events), s.id().toString());
    }

    /**
     * Whether {@code t} is a change the history shows. Parked again on the same participant, at the
     * same status, step and label, is a retry: the saga's park count says how many, and a long
     * outage adds no history row per attempt. What an operator does (a retry, a move to another
     * definition version) is always history.
     */
    static boolean changesState(Transition<?> t) {
        SagaInstance<?> b = t.before();
        SagaInstance<?> a = t.after();
        if (t.reason() != null && (Reason.OPERATOR_RETRY.equals(t.reason().code())
                || Reason.MIGRATED.equals(t.reason().code()))) {
            return true;
        }
        boolean reparked = a.parkedOn() != null && a.parkedOn().equals(b.parkedOn());
        return !(reparked && a.status() == b.status() && a.stepIndex() == b.stepIndex()
                && java.util.Objects.equals(a.label(), b.label()));
    }

    /** A transition's messages, then the events that tell of it: one outbox row per key (OutboxWriter). */
    private static List<OutgoingMessage> outgoing(Transition<?> t, List<OutgoingMessage> events) {
        if (events.isEmpty()) {
            return t.messages();
        }
        List<OutgoingMessage> all = new java.util.ArrayList<>(t.messages());
        all.addAll(events);
        return all;
    }

    /** Bumps the version and sets a lease: the claim a runner makes before running a step. */
    static void claim(Handle h, UUID id, int expectedVersion, Instant leaseUntil) {
        int rows = h.createUpdate("UPDATE saga_instance SET version = version + 1, next_attempt_at = :lease"
                        + " WHERE saga_id = :id AND version = :expected")
                .bind("id", id).bind("expected", expectedVersion).bind("lease", ts(leaseUntil)).execute();
        if (rows != 1) {
            throw new ConcurrentSagaUpdate(id, expectedVersion);
        }
    }

    static Optional<Row> find(Handle h, UUID id) {
        return h.createQuery("SELECT " + COLUMNS + " FROM saga_instance WHERE saga_id = :id")
                .bind("id", id).map(SagaStore::row).findOne();
    }

    /**
     * Locks the instances among {@code ids} that exist and run a version in {@code known}, in id order
     * (no deadlock between lockers of many). An instance of another version is never locked.
     */
    static List<Row> lockAll(Handle h, List<UUID> ids, Set<SagaVersion> known) {
        return known(h.createQuery("SELECT " + COLUMNS + " FROM saga_instance WHERE saga_id = ANY(CAST(:ids AS uuid[]))"
                        + KNOWN + " ORDER BY saga_id FOR UPDATE"), known)
                .bindArray("ids", String.class, ids.stream().map(UUID::toString).toArray())
                .map(SagaStore::row).list();
    }

    /** Those of {@code ids} that exist, whatever version they run (without a lock). */
    static Set<UUID> existing(Handle h, List<UUID> ids) {
        return h.createQuery("SELECT saga_id FROM saga_instance WHERE saga_id = ANY(CAST(:ids AS uuid[]))")
                .bindArray("ids", String.class, ids.stream().map(UUID::toString).toArray())
                .mapTo(UUID.class).set();
    }

    /** The (type, version) pairs {@code ids} run, as text for a message: e.g. {@code [ghost v1]}. */
    static String versionsOf(Handle h, Set<UUID> ids) {
        return h.createQuery("SELECT DISTINCT saga_type || ' v' || definition_version FROM saga_instance"
                        + " WHERE saga_id = ANY(CAST(:ids AS uuid[]))")
                .bindArray("ids", String.class, ids.stream().map(UUID::toString).toArray())
                .mapTo(String.class).list().toString();
    }

    /**
     * Of {@code ids}, the instances whose (type, version) some process with a heartbeat in {@code
     * saga_definition_host} has (stale rows are deleted by the live processes' heartbeats): work for
     * those waits for that process; the others no running process can run.
     */
    static Set<UUID> heldElsewhere(Handle h, List<UUID> ids) {
        return h.createQuery("SELECT s.saga_id FROM saga_instance s WHERE s.saga_id = ANY(CAST(:ids AS uuid[]))"
                        + " AND EXISTS (SELECT 1 FROM saga_definition_host p WHERE p.saga_type = s.saga_type"
                        + " AND p.definition_version = s.definition_version)")
                .bindArray("ids", String.class, ids.stream().map(UUID::toString).toArray())
                .mapTo(UUID.class).set();
    }

    /**
     * Keeps a statement to the instances whose (type, version) is one of {@code :knownTypes} and
     * {@code :knownVersions} taken pairwise ({@link #known}): those this engine has a definition for.
     * Every claim of work filters with it, so a process never locks an instance it cannot run.
     */
    static final String KNOWN = " AND (saga_type, definition_version) IN (SELECT * FROM"
            + " unnest(CAST(:knownTypes AS text[]), CAST(:knownVersions AS int[])))";

    /** Binds {@link #KNOWN}'s arrays to {@code known}. */
    static <Q extends org.jdbi.v3.core.statement.SqlStatement<Q>> Q known(Q statement, Set<SagaVersion> known) {
        List<SagaVersion> pairs = List.copyOf(known);
        return statement.bindArray("knownTypes", String.class, pairs.stream().map(SagaVersion::type).toArray())
                .bindArray("knownVersions", Integer.class, pairs.stream().map(SagaVersion::version).toArray());
    }

    /**
     * Locks up to {@code limit} instances whose current step is due, oldest first, skipping rows
     * another runner holds. {@code skipParkedOn} leaves out sagas parked on those dependencies.
     */
    static List<Row> lockDue(Handle h, Instant now, int limit, Set<String> skipParkedOn, String onlyParkedOn,
            Set<SagaVersion> known) {
        return known(h.createQuery("SELECT " + COLUMNS + " FROM saga_instance WHERE next_attempt_at <= :now"
                        + " AND status IN ('RUNNING', 'PARKED', 'COMPENSATING')"
                        + " AND (parked_on IS NULL OR NOT (parked_on = ANY(:skip)))"
                        + (onlyParkedOn != null ? " AND parked_on = :only" : "") + KNOWN
                        + " ORDER BY created_at LIMIT :limit FOR UPDATE SKIP LOCKED"), known)
                .bind("now", ts(now)).bind("limit", limit).bindArray("skip", String.class, skipParkedOn.toArray())
                .bind("only", onlyParkedOn).map(SagaStore::row).list();
    }

    static List<Row> lockTimedOut(Handle h, Instant now, int limit, Set<SagaVersion> known) {
        return known(h.createQuery("SELECT " + COLUMNS + " FROM saga_instance WHERE step_deadline_at <= :now"
                        + " AND status = 'AWAITING_REPLY'" + KNOWN
                        + " ORDER BY step_deadline_at LIMIT :limit FOR UPDATE SKIP LOCKED"), known)
                .bind("now", ts(now)).bind("limit", limit).map(SagaStore::row).list();
    }

    static List<Row> lockExpired(Handle h, Instant now, int limit, Set<SagaVersion> known) {
        return known(h.createQuery("SELECT " + COLUMNS + " FROM saga_instance WHERE expires_at <= :now"
                        + " AND status = 'PARKED'" + KNOWN + " ORDER BY expires_at LIMIT :limit FOR UPDATE SKIP LOCKED"),
                known)
                .bind("now", ts(now)).bind("limit", limit).map(SagaStore::row).list();
    }

    private static <D> java.util.Map<String, Object> values(SagaInstance<D> s) {
        java.util.Map<String, Object> m = new java.util.HashMap<>();
        m.put("status", s.status().name());
        m.put("definitionVersion", s.definition().version());
        m.put("step", s.step());
        m.put("label", s.label());
        m.put("version", s.version());
        m.put("data", Json.write(s.data()));
        m.put("parkedOn", s.parkedOn());
        m.put("parkReason", s.parkReason());
        m.put("parkCount", s.parkCount());
        m.put("next", ts(s.nextAttemptAt()));
        m.put("stepDeadline", ts(s.stepDeadlineAt()));
        m.put("expires", ts(s.expiresAt()));
        m.put("completed", s.completedSteps());
        m.put("retries", s.stepRetries());
        m.put("causeCode", s.cause() == null ? null : s.cause().code());
        m.put("causeDetail", s.cause() == null ? null : s.cause().detail());
        m.put("incidentCause", s.incident() == null ? null : s.incident().cause().name());
        m.put("incidentDetail", s.incident() == null ? null : s.incident().detail());
        m.put("incidentAt", s.incident() == null ? null : ts(s.incident().at()));
        return m;
    }

    private static java.util.Map<String, Object> reason(Reason r) {
        java.util.Map<String, Object> m = new java.util.HashMap<>();
        m.put("reasonCode", r.code());
        m.put("reason", r.detail() == null ? r.code() : r.detail());
        return m;
    }

    private static Row row(ResultSet rs, StatementContext ctx) throws SQLException {
        return new Row(rs.getObject("saga_id", UUID.class), new SagaVersion(rs.getString("saga_type"),
                rs.getInt("definition_version")),
                SagaStatus.valueOf(rs.getString("status")), rs.getString("step"), rs.getString("label"),
                rs.getInt("version"), rs.getString("data"), rs.getString("parked_on"), rs.getString("park_reason"),
                rs.getInt("park_count"), instant(rs, "next_attempt_at"), instant(rs, "step_deadline_at"),
                instant(rs, "expires_at"), instant(rs, "created_at"), rs.getInt("completed_steps"),
                rs.getInt("step_retries"), rs.getString("cause_code") == null ? null
                        : Reason.of(rs.getString("cause_code"), rs.getString("cause_detail")),
                rs.getString("incident_cause") == null ? null : new Incident(
                        IncidentCause.valueOf(rs.getString("incident_cause")), rs.getString("incident_detail"),
                        instant(rs, "incident_at")), rs.getString("traceparent"));
    }

    /**
     * Marks saga {@code id} as an incident from outside a transition of its own (a consumer that
     * dead-lettered its message, a reconciler that gave up): no definition needed, the status and
     * step stay, a history row says why. Raising the cause it already has changes nothing.
     *
     * @return true when the mark is new (or its cause changed)
     */
    static boolean raiseIncident(Handle h, UUID id, IncidentCause cause, String detail, Instant at) {
        return h.createUpdate("WITH marked AS (UPDATE saga_instance SET incident_cause = :cause,"
                        + " incident_detail = :detail, incident_at = :at, version = version + 1, updated_at = now()"
                        + " WHERE saga_id = :id AND incident_cause IS DISTINCT FROM :cause"
                        + " AND status NOT IN ('COMPLETED', 'COMPENSATED', 'FAILED')"
                        + " RETURNING saga_id, status, step, label)"
                        + " INSERT INTO saga_history (saga_id, status, step, label, reason_code, reason)"
                        + " SELECT saga_id, status, step, label, :code, :detail FROM marked")
                .bind("id", id).bind("cause", cause.name()).bind("detail", detail).bind("at", ts(at))
                .bind("code", cause.name().toLowerCase(java.util.Locale.ROOT)).execute() == 1;
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    private static Timestamp ts(Instant i) {
        return i == null ? null : Timestamp.from(i);
    }
}
