package org.sagas.orchestrator.ordering;

import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.persistence.IdempotencyStore;

/** The {@code orders} table and the order's history (from the saga's). Thread-safe. */
public final class OrderStore {
    /** One transition as the customer sees it. */
    public record HistoryEntry(String status, Instant at, String reason) {}

    /** An order with its history, as {@code GET /orders/{id}} shows it. */
    public record OrderView(UUID orderId, String status, String customerId, String currency, long totalCents,
            List<OrderLine> lines, Instant createdAt, List<HistoryEntry> history) {}

    private final Jdbi jdbi;

    public OrderStore(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /**
     * Inserts the order, claiming its idempotency key in the same statement.
     *
     * @return false (nothing inserted) when the key was already taken
     */
    static boolean insertClaiming(Handle h, IdempotencyStore keys, String key, String requestHash, Instant now,
            OrderData o, OrderStatus status) {
        return keys.bindClaim(h.createUpdate("WITH " + IdempotencyStore.CLAIMED_CTE
                        + " INSERT INTO orders (order_id, customer_id, currency, total_cents, lines, status)"
                        + " SELECT order_id, :customer, :currency, :total, CAST(:lines AS jsonb), :status FROM claimed"),
                        key, requestHash, o.orderId(), now)
                .bind("customer", o.customerId()).bind("currency", o.currency())
                .bind("total", o.totalCents()).bind("lines", Json.write(o.lines())).bind("status", status.name())
                .execute() == 1;
    }

    /** Moves the order's customer-visible status, in the transition's transaction; true if it changed. */
    static boolean updateStatus(Handle h, UUID orderId, OrderStatus status) {
        // Only a real change counts: a transition that keeps the status (a parked retry) is no event.
        return h.createUpdate("UPDATE orders SET status = :status, updated_at = now()"
                        + " WHERE order_id = :id AND status <> :status")
                .bind("status", status.name()).bind("id", orderId).execute() == 1;
    }

    /** Order counts for {@code statuses}, and when the oldest pending order was created (0: none). */
    public record Counts(Map<OrderStatus, Long> byStatus, long oldestPendingEpochMillis) {}

    /** Counts orders in {@code statuses} (through the status index) and finds the oldest pending one. */
    public Counts counts(List<OrderStatus> statuses) {
        return jdbi.withHandle(h -> {
            Map<OrderStatus, Long> counts = new EnumMap<>(OrderStatus.class);
            h.createQuery("SELECT status, count(*) FROM orders WHERE status IN (<statuses>) GROUP BY status")
                    .bindList("statuses", statuses.stream().map(Enum::name).toList())
                    .map((rs, ctx) -> Map.entry(OrderStatus.valueOf(rs.getString(1)), rs.getLong(2)))
                    .forEach(e -> counts.put(e.getKey(), e.getValue()));
            Long oldest = h.createQuery("SELECT (extract(epoch FROM min(created_at)) * 1000)::bigint FROM orders"
                    + " WHERE status = 'PENDING_CONFIRMATION'").mapTo(Long.class).one();
            return new Counts(counts, oldest == null ? 0 : oldest);
        });
    }

    /** Up to {@code limit} orders in {@code status}, least recently changed first. */
    public List<UUID> oldestIn(OrderStatus status, int limit) {
        return jdbi.withHandle(h -> h.createQuery("SELECT order_id FROM orders WHERE status = :s"
                + " ORDER BY updated_at LIMIT :limit").bind("s", status.name()).bind("limit", limit)
                .mapTo(UUID.class).list());
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
        return jdbi.withHandle(h -> h.createQuery("SELECT order_id, status, customer_id, currency, total_cents,"
                        + " lines::text AS lines, created_at FROM orders"
                        + (status == null ? "" : " WHERE status = :status")
                        + " ORDER BY created_at DESC LIMIT :limit")
                .bind("status", status == null ? null : status.name()).bind("limit", limit)
                .map((rs, ctx) -> view(rs, null)).list());
    }

    private static List<HistoryEntry> history(Handle h, UUID orderId) {
        return h.createQuery("SELECT label, at, reason FROM saga_history WHERE saga_id = :id ORDER BY id")
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
