package org.sagas.orchestrator.ordering;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.saga.IncidentCause;
import org.sagas.orchestrator.Json;

/**
 * Reads orders: the {@code orders} view of the order sagas' rows (V11: the saga row holds the order,
 * its status as the label and when that last changed), and the order's history (the saga's).
 * Nothing here writes: an order is written with its saga. Thread-safe.
 */
public final class OrderStore {
    /** One transition as the customer sees it: {@code reason} is a stable code (e.g. {@code out_of_stock}). */
    public record HistoryEntry(String status, Instant at, String reason) {}

    /** An order with its history, as {@code GET /orders/{id}} shows it. */
    public record OrderView(UUID orderId, String status, String customerId, String currency, long totalCents,
            List<OrderLine> lines, Instant createdAt, List<HistoryEntry> history) {}

    private final Jdbi jdbi;

    public OrderStore(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** How an order's submission resolved: its status then, and the saga's cause (kept to its end). */
    record Resolution(OrderStatus status, org.sagas.orchestrator.saga.Reason cause) {}

    /**
     * How the submission of {@code orderId} resolved, from what its saga stored: the status of its
     * first transition after the start (the history's second row) and the cause the saga keeps from
     * the moment it turned back; empty while the submission is unresolved.
     */
    Optional<Resolution> resolution(UUID orderId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT r.label, s.cause_code, s.cause_detail FROM saga_instance s"
                        + " CROSS JOIN LATERAL (SELECT label FROM saga_history WHERE saga_id = s.saga_id ORDER BY id"
                        + " OFFSET 1 LIMIT 1) r WHERE s.saga_id = :id")
                .bind("id", orderId)
                .map((rs, ctx) -> new Resolution(OrderStatus.valueOf(rs.getString(1)), rs.getString(2) == null ? null
                        : org.sagas.orchestrator.saga.Reason.of(rs.getString(2), rs.getString(3))))
                .findOne());
    }

    /** Order counts for {@code statuses}, and when the oldest pending order was created (0: none). */
    /**
     * @param parked orders parked on a dependency (accepted while it was unavailable): the pending
     *     orders that are waiting, not those whose reservation is running at this moment
     */
    public record Counts(Map<OrderStatus, Long> byStatus, long oldestPendingEpochMillis, long parked) {}

    /**
     * Counts orders in {@code statuses} (through the status index), finds the oldest pending one and
     * counts the parked ones (through the parked index).
     */
    public Counts counts(List<OrderStatus> statuses) {
        return jdbi.withHandle(h -> {
            Map<OrderStatus, Long> counts = new EnumMap<>(OrderStatus.class);
            h.createQuery("SELECT status, count(*) FROM orders WHERE status IN (<statuses>) GROUP BY status")
                    .bindList("statuses", statuses.stream().map(Enum::name).toList())
                    .map((rs, ctx) -> Map.entry(OrderStatus.valueOf(rs.getString(1)), rs.getLong(2)))
                    .forEach(e -> counts.put(e.getKey(), e.getValue()));
            Long oldest = h.createQuery("SELECT (extract(epoch FROM min(created_at)) * 1000)::bigint FROM orders"
                    + " WHERE status = 'PENDING_CONFIRMATION'").mapTo(Long.class).one();
            long parked = h.createQuery("SELECT count(*) FROM saga_instance WHERE parked_on IS NOT NULL"
                    + " AND status = 'PARKED' AND saga_type = 'order'").mapTo(Long.class).one();
            return new Counts(counts, oldest == null ? 0 : oldest, parked);
        });
    }

    /** Up to {@code limit} orders in {@code status}, least recently changed first. */
    public List<UUID> oldestIn(OrderStatus status, int limit) {
        return jdbi.withHandle(h -> h.createQuery("SELECT order_id FROM orders WHERE status = :s"
                + " ORDER BY updated_at LIMIT :limit").bind("s", status.name()).bind("limit", limit)
                .mapTo(UUID.class).list());
    }

    /**
     * An order whose payment is unknown, as the reconciler sees it.
     *
     * @param quietMillis how long since its last transition (its charge was sent, or resent)
     * @param resends how many times its charge was sent again
     * @param incident its saga's incident cause, or null
     * @param chargeQueued its charge command still waits in the outbox (not published yet)
     */
    public record UnknownPayment(UUID orderId, long quietMillis, int resends, IncidentCause incident,
            boolean chargeQueued) {}

    /**
     * Up to {@code limit} orders in {@code PAYMENT_UNKNOWN} with ids after {@code after} (null:
     * from the first), by id — a cursor that goes round all of them, whichever cannot be settled
     * — leaving out those already given up on ({@code PAYMENT_UNRESOLVED}).
     */
    public List<UnknownPayment> unknownPayments(UUID after, int limit) {
        return jdbi.withHandle(h -> h.createQuery("SELECT o.order_id,"
                        + " (extract(epoch FROM now() - o.updated_at) * 1000)::bigint AS quiet_ms, s.step_retries,"
                        + " s.incident_cause, EXISTS (SELECT 1 FROM outbox_message x"
                        + "   WHERE x.shard = (abs(hashtext(o.order_id::text)) % 64)::smallint"
                        + "   AND x.aggregate_id = o.order_id::text AND x.message_type = :charge) AS queued"
                        + " FROM orders o JOIN saga_instance s ON s.saga_id = o.order_id"
                        + " WHERE o.status = 'PAYMENT_UNKNOWN'"
                        + " AND (CAST(:after AS uuid) IS NULL OR o.order_id > CAST(:after AS uuid))"
                        + " AND s.incident_cause IS DISTINCT FROM 'PAYMENT_UNRESOLVED'"
                        + " ORDER BY o.order_id LIMIT :limit")
                .bind("after", after == null ? null : after.toString())
                .bind("limit", limit).bind("charge", OrderMessages.CHARGE_PAYMENT)
                .map((rs, ctx) -> new UnknownPayment(rs.getObject(1, UUID.class), rs.getLong(2), rs.getInt(3),
                        rs.getString(4) == null ? null : IncidentCause.valueOf(rs.getString(4)), rs.getBoolean(5)))
                .list());
    }

    public Optional<OrderStatus> status(UUID orderId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT status FROM orders WHERE order_id = :id")
                .bind("id", orderId).mapTo(String.class).findOne().map(OrderStatus::valueOf));
    }

    public Optional<OrderView> find(UUID orderId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT order_id, status, customer_id, currency, total_cents,"
                        + " lines::text AS lines, created_at FROM orders WHERE order_id = :id")
                .bind("id", orderId).map((rs, ctx) -> view(rs, history(h, orderId))).findOne());
    }

    /** Newest first; {@code status} null for every status. */
    public List<OrderView> list(OrderStatus status, int limit) {
        return list(status, limit, null);
    }

    /** Newest first, only {@code customers}' orders; {@code status} null for every status, {@code customers} null for all. */
    public List<OrderView> list(OrderStatus status, int limit, Set<String> customers) {
        String where = (status == null ? "" : " AND status = :status")
                + (customers == null ? "" : " AND customer_id = ANY(:customers)");
        return jdbi.withHandle(h -> h.createQuery("SELECT order_id, status, customer_id, currency, total_cents,"
                        + " lines::text AS lines, created_at FROM orders WHERE true" + where
                        + " ORDER BY created_at DESC LIMIT :limit")
                .bind("status", status == null ? null : status.name()).bind("limit", limit)
                .bind("customers", customers == null ? new String[0] : customers.toArray(String[]::new))
                .map((rs, ctx) -> view(rs, null)).list());
    }

    /** Orders of {@code customers} pending confirmation now (one client's share of the pending cap). */
    public long pendingOf(Set<String> customers) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM orders WHERE status = 'PENDING_CONFIRMATION'"
                        + " AND customer_id = ANY(:customers)")
                .bind("customers", customers.toArray(String[]::new)).mapTo(Long.class).one());
    }

    /** The most a count goes up to: beyond it an operator's filter is too wide to act on at once. */
    public static final int COUNT_CAP = 100_000;
    private static final String OPEN = "('PENDING_CONFIRMATION', 'AWAITING_PAYMENT', 'PAYMENT_UNKNOWN', 'COMPENSATING')";
    private static final String OPEN_SAGA = "('RUNNING', 'AWAITING_REPLY', 'PARKED', 'COMPENSATING')";

    /**
     * Up to {@code limit} orders matching {@code filter} with their sagas, after {@code after} (null:
     * from the start), newest first or oldest first. Each criterion has an index (V1, V5, V7).
     */
    public List<OrderSummary> search(OrderFilter filter, OrderCursor after, int limit, boolean newestFirst) {
        return jdbi.withHandle(h -> bindSearch(h.createQuery(searchSql(filter, after != null, newestFirst)), filter,
                after, now()).bind("limit", limit).map((rs, ctx) -> summary(rs)).list());
    }

    /** How many orders match {@code filter}, counting up to {@link #COUNT_CAP} at most. */
    public int count(OrderFilter filter) {
        return jdbi.withHandle(h -> bindSearch(h.createQuery(countSql(filter)), filter, null, now())
                .bind("cap", COUNT_CAP).mapTo(Integer.class).one());
    }

    static String searchSql(OrderFilter f, boolean afterCursor, boolean newestFirst) {
        String direction = newestFirst ? " DESC" : " ASC";
        return "SELECT o.order_id, o.status, o.customer_id, o.currency, o.total_cents, o.created_at, o.updated_at,"
                + " s.status AS saga_status, s.step, s.version, s.definition_version, s.parked_on, s.park_reason, s.next_attempt_at,"
                + " s.step_deadline_at, s.incident_cause, s.incident_detail, s.incident_at"
                + " FROM orders o JOIN saga_instance s ON s.saga_id = o.order_id"
                + where(f, afterCursor ? (newestFirst ? "<" : ">") : null)
                + " ORDER BY o.created_at" + direction + ", o.order_id" + direction + " LIMIT :limit";
    }

    static String countSql(OrderFilter f) {
        // Bounded, so a wide filter costs a bounded walk of an index, never a read of a whole table:
        // the first COUNT_CAP in list order, or straight from the saga indexes when only the saga
        // is filtered (joining a few thousand sagas to orders would make the planner read orders whole).
        List<String> onOrder = orderConditions(f, null);
        if (onOrder.isEmpty() && f.onSaga()) {
            return "SELECT count(*)::int FROM (SELECT 1 FROM saga_instance s WHERE s.saga_type = 'order' AND "
                    + String.join(" AND ", sagaConditions(f)) + " LIMIT :cap) matched";
        }
        return "SELECT count(*)::int FROM (SELECT 1 FROM orders o"
                + (f.onSaga() ? " JOIN saga_instance s ON s.saga_id = o.order_id" : "") + where(f, null)
                + " ORDER BY o.created_at DESC LIMIT :cap) matched";
    }

    private static String where(OrderFilter f, String cursorComparison) {
        List<String> and = orderConditions(f, cursorComparison);
        and.addAll(sagaConditions(f));
        return and.isEmpty() ? "" : " WHERE " + String.join(" AND ", and);
    }

    private static List<String> orderConditions(OrderFilter f, String cursorComparison) {
        List<String> and = new java.util.ArrayList<>();
        if (!f.statuses().isEmpty()) {
            and.add("o.status = ANY(:statuses)");
        }
        if (f.customerId() != null) {
            and.add("o.customer_id = :customer");
        }
        if (f.idempotencyKey() != null) {
            // Every client's order under the key: keys are per client (V12), operators see all clients.
            and.add("o.order_id IN (SELECT k.order_id FROM idempotency_keys k WHERE k.idem_key = :idemKey)");
        }
        if (f.stuckFor() != null) {
            and.add("o.status IN " + OPEN + " AND o.updated_at <= :stuckSince");
        }
        if (f.createdFrom() != null) {
            and.add("o.created_at >= :createdFrom");
        }
        if (f.createdTo() != null) {
            and.add("o.created_at < :createdTo");
        }
        if (cursorComparison != null) {
            and.add("(o.created_at, o.order_id) " + cursorComparison + " (:cursorAt, :cursorId)");
        }
        return and;
    }

    private static List<String> sagaConditions(OrderFilter f) {
        List<String> and = new java.util.ArrayList<>();
        if (f.step() != null) {
            and.add("s.step = :step AND s.status IN " + OPEN_SAGA);
        }
        if (f.parkedOn() != null) {
            and.add("s.parked_on = :parkedOn");
        }
        if (f.incident() != null) {
            and.add(OrderFilter.ANY_INCIDENT.equals(f.incident()) ? "s.incident_cause IS NOT NULL"
                    : "s.incident_cause = :incident");
        }
        if (f.definitionVersion() != null) {
            and.add("s.definition_version = :definitionVersion");
        }
        return and;
    }

    static <S extends org.jdbi.v3.core.statement.SqlStatement<S>> S bindSearch(S statement, OrderFilter f,
            OrderCursor after, Instant now) {
        if (!f.statuses().isEmpty()) {
            statement.bindArray("statuses", String.class, f.statuses().stream().map(Enum::name).toArray());
        }
        // Only what the statement uses: Jdbi refuses superfluous bindings.
        bindIf(statement, "customer", f.customerId());
        bindIf(statement, "idemKey", f.idempotencyKey());
        bindIf(statement, "step", f.step());
        bindIf(statement, "parkedOn", f.parkedOn());
        bindIf(statement, "incident", OrderFilter.ANY_INCIDENT.equals(f.incident()) ? null : f.incident());
        bindIf(statement, "definitionVersion", f.definitionVersion());
        bindIf(statement, "stuckSince", f.stuckFor() == null ? null : Timestamp.from(now.minus(f.stuckFor())));
        bindIf(statement, "createdFrom", f.createdFrom() == null ? null : Timestamp.from(f.createdFrom()));
        bindIf(statement, "createdTo", f.createdTo() == null ? null : Timestamp.from(f.createdTo()));
        if (after != null) {
            statement.bind("cursorAt", Timestamp.from(after.createdAt())).bind("cursorId", after.orderId());
        }
        return statement;
    }

    private static void bindIf(org.jdbi.v3.core.statement.SqlStatement<?> statement, String name, Object value) {
        if (value != null) {
            statement.bind(name, value);
        }
    }

    private static Instant now() {
        return Instant.now();
    }

    private static OrderSummary summary(ResultSet rs) throws SQLException {
        return new OrderSummary(rs.getObject("order_id", UUID.class), OrderStatus.valueOf(rs.getString("status")),
                rs.getString("customer_id"), rs.getString("currency"), rs.getLong("total_cents"),
                instant(rs, "created_at"), instant(rs, "updated_at"), rs.getString("saga_status"), rs.getString("step"),
                rs.getInt("version"), rs.getInt("definition_version"), rs.getString("parked_on"), rs.getString("park_reason"),
                instant(rs, "next_attempt_at"), instant(rs, "step_deadline_at"), rs.getString("incident_cause"),
                rs.getString("incident_detail"), instant(rs, "incident_at"));
    }

    private static Instant instant(ResultSet rs, String column) throws SQLException {
        Timestamp t = rs.getTimestamp(column);
        return t == null ? null : t.toInstant();
    }

    private static List<HistoryEntry> history(Handle h, UUID orderId) {
        // Customers see the stable code; the detail (a participant's text) is for operators only.
        return h.createQuery("SELECT label, at, COALESCE(reason_code, reason) FROM saga_history WHERE saga_id = :id"
                        + " ORDER BY id")
                .bind("id", orderId)
                .map((rs, ctx) -> new HistoryEntry(rs.getString(1), rs.getTimestamp(2).toInstant(), rs.getString(3)))
                .list();
    }

    private static OrderView view(ResultSet rs, List<HistoryEntry> history) throws SQLException {
        OrderLine[] lines = Json.read(rs.getString("lines"), OrderLine[].class);
        return new OrderView(rs.getObject("order_id", UUID.class), rs.getString("status"),
                rs.getString("customer_id"), rs.getString("currency"), rs.getLong("total_cents"), List.of(lines),
                rs.getTimestamp("created_at").toInstant(), history);
    }
}
