package org.sagas.sandbox;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Savepoint;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Collectors;

/**
 * The inventory sandbox's state in PostgreSQL (schema {@code sandbox}). Each operation is one
 * transaction; idempotency rests on the keys being primary keys, so even concurrent duplicates
 * have one effect. Stock rows are always taken in SKU order, so transactions do not deadlock.
 * Thread-safe.
 */
final class InventoryStore {
    private static final String READ_RESERVATIONS = """
            SELECT r.reservation_key, r.order_id, r.status, l.sku, l.quantity
            FROM sandbox.reservation r
            LEFT JOIN sandbox.reservation_line l ON l.reservation_key = r.reservation_key
            """;
    private static final String ORDERED = " ORDER BY r.created_at, r.reservation_key, l.sku";

    private final Db db;

    InventoryStore(Db db) {
        this.db = db;
    }

    /**
     * Sets what can still be reserved of {@code sku}, and records what the SKU is stocked with now:
     * {@code available} plus what reservations hold. The stock row is locked first, so the held
     * quantities are read after any reservation or release of the SKU that was under way.
     */
    StockLevel setAvailable(String sku, int available) {
        return db.inTransaction(c -> {
            Db.query(c, "SELECT sku FROM sandbox.stock WHERE sku = ? FOR UPDATE", rs -> rs.getString(1), sku);
            Db.update(c, "INSERT INTO sandbox.stock (sku, available, stocked) VALUES (?, ?, ? + (" + HELD + "))"
                    + " ON CONFLICT (sku) DO UPDATE"
                    + " SET available = EXCLUDED.available, stocked = EXCLUDED.stocked, updated_at = now()",
                    sku, available, available, sku);
            return stock(c, sku);
        });
    }

    /** What the reservations of one SKU (the parameter) hold now. */
    private static final String HELD = """
            SELECT coalesce(sum(l.quantity), 0) FROM sandbox.reservation_line l
            JOIN sandbox.reservation r ON r.reservation_key = l.reservation_key
            WHERE l.sku = ? AND r.status = 'RESERVED'""";

    StockLevel stock(String sku) {
        return db.withConnection(c -> stock(c, sku));
    }

    /**
     * Reserves every line or none under {@code key}. A key seen before answers what it holds now,
     * with no second effect: RESERVED, OUT_OF_STOCK, or RELEASED (released, or a tombstone).
     */
    Reservation reserve(String key, ReserveRequest request) {
        return db.inTransaction(c -> {
            commitWithoutWaitingForTheDisk(c);
            Object[] skus = request.lines().stream().map(Reservation.Line::sku).toArray();
            Object[] quantities = request.lines().stream().map(Reservation.Line::quantity).toArray();
            // Claiming the key first makes a concurrent duplicate wait here, then find this row; the
            // lines go in with the claim (no line is inserted when the key was taken).
            int claimed = Db.update(c, """
                    WITH claimed AS (
                        INSERT INTO sandbox.reservation (reservation_key, order_id, status)
                        VALUES (?, ?, 'OUT_OF_STOCK') ON CONFLICT (reservation_key) DO NOTHING
                        RETURNING reservation_key)
                    INSERT INTO sandbox.reservation_line (reservation_key, sku, quantity)
                    SELECT claimed.reservation_key, l.sku, l.quantity
                    FROM claimed, unnest(?::text[], ?::int[]) AS l(sku, quantity)""",
                    key, request.orderId(), c.createArrayOf("text", skus), c.createArrayOf("int4", quantities));
            if (claimed == 0) {
                return find(c, key).orElseThrow();
            }
            if (!takeStock(c, key, request.lines())) {
                return new Reservation(key, request.orderId(), ReservationStatus.OUT_OF_STOCK, request.lines());
            }
            return new Reservation(key, request.orderId(), ReservationStatus.RESERVED, request.lines());
        });
    }

    /**
     * Releases the reservation under {@code reservationKey}, once, under {@code releaseKey}: its
     * stock becomes available again. Releasing an unknown key leaves a tombstone (RELEASED, no
     * lines) so that a reservation arriving later under that key holds nothing. A repeated
     * release key answers the reservation as it is now.
     */
    Reservation release(String releaseKey, String reservationKey, String orderId) {
        return db.inTransaction(c -> {
            commitWithoutWaitingForTheDisk(c);
            int claimed = Db.update(c, """
                    INSERT INTO sandbox.release_request (release_key, reservation_key) VALUES (?, ?)
                    ON CONFLICT (release_key) DO NOTHING""", releaseKey, reservationKey);
            if (claimed == 0) {
                String earlier = Db.queryFirst(c,
                        "SELECT reservation_key FROM sandbox.release_request WHERE release_key = ?",
                        rs -> rs.getString(1), releaseKey).orElseThrow();
                return find(c, earlier).orElseThrow();
            }
            // A reservation being made under this key right now makes this insert wait for it.
            int tombstone = Db.update(c, """
                    INSERT INTO sandbox.reservation (reservation_key, order_id, status)
                    VALUES (?, ?, 'RELEASED') ON CONFLICT (reservation_key) DO NOTHING""",
                    reservationKey, orderId);
            if (tombstone == 0) {
                ReservationStatus status = Db.queryFirst(c,
                        "SELECT status FROM sandbox.reservation WHERE reservation_key = ? FOR UPDATE",
                        rs -> ReservationStatus.valueOf(rs.getString(1)), reservationKey).orElseThrow();
                if (status == ReservationStatus.RESERVED) {
                    returnStock(c, find(c, reservationKey).orElseThrow().lines());
                    setStatus(c, reservationKey, ReservationStatus.RELEASED);
                }
            }
            return find(c, reservationKey).orElseThrow();
        });
    }

    Optional<Reservation> reservation(String key) {
        return db.withConnection(c -> find(c, key));
    }

    /** The reservations of {@code orderId} (every reservation when null), oldest first. */
    List<Reservation> reservations(String orderId) {
        return db.withConnection(c -> orderId == null
                ? read(Db.query(c, READ_RESERVATIONS + ORDERED, InventoryStore::row))
                : read(Db.query(c, READ_RESERVATIONS + " WHERE r.order_id = ?" + ORDERED, InventoryStore::row,
                        orderId)));
    }

    /** The page of the reservation feed after {@code after} (see {@link FeedPage}). */
    FeedPage<ReservationChange> changes(FeedPage.After after) {
        record Changed(String key, String orderId, ReservationStatus status, String updatedAt,
                String cursor) {}
        return db.withConnection(c -> {
            List<Changed> changed = Db.query(c, "SELECT reservation_key, order_id, status, updated_at,"
                    + " change_xid::text AS xid, change_seq FROM sandbox.reservation WHERE" + FeedPage.where()
                    + " ORDER BY change_xid, change_seq LIMIT ?", rs -> new Changed(rs.getString("reservation_key"),
                            rs.getString("order_id"), ReservationStatus.valueOf(rs.getString("status")),
                            rs.getTimestamp("updated_at").toInstant().toString(),
                            FeedPage.cursor(rs.getString("xid"), rs.getLong("change_seq"))),
                    after.xid(), after.seq(), after.limit());
            if (changed.isEmpty()) {
                return new FeedPage<ReservationChange>(List.of(), FeedPage.cursor(after.xid(), after.seq()));
            }
            Map<String, List<Reservation.Line>> lines = new java.util.HashMap<>();
            for (Row row : Db.query(c, READ_RESERVATIONS + " WHERE r.reservation_key = ANY(?)", InventoryStore::row,
                    c.createArrayOf("text", changed.stream().map(Changed::key).toArray()))) {
                List<Reservation.Line> of = lines.computeIfAbsent(row.key(), k -> new ArrayList<>());
                if (row.sku() != null) {
                    of.add(new Reservation.Line(row.sku(), row.quantity()));
                }
            }
            List<ReservationChange> items = changed.stream().map(ch -> new ReservationChange(ch.key(), ch.orderId(),
                    ch.status(), lines.getOrDefault(ch.key(), List.of()), ch.updatedAt(), ch.cursor())).toList();
            return new FeedPage<>(items, items.get(items.size() - 1).cursor());
        });
    }

    /**
     * Takes every line's quantity and marks the reservation RESERVED, or (rolling back to a
     * savepoint) takes none; true if taken. One line, the usual case, is one statement.
     */
    /**
     * A reservation holds its SKU's stock row from the update to the end of its commit, so with a
     * durable commit every order of one hot SKU queues behind a WAL flush, and the sandbox, not the
     * latency it was told to simulate, decides how fast inventory answers (at 100 orders/s of one SKU
     * it parked healthy orders). The sandbox stands in for an inventory service; it gives up only
     * the last fraction of a second of reservations on an operating-system crash (the WAL writer
     * flushes them within {@code wal_writer_delay}), never their consistency.
     */
    private static void commitWithoutWaitingForTheDisk(Connection c) throws SQLException {
        Db.update(c, "SET LOCAL synchronous_commit = off");
    }

    private static boolean takeStock(Connection c, String key, List<Reservation.Line> linesInSkuOrder)
            throws SQLException {
        if (linesInSkuOrder.size() == 1) {
            Reservation.Line line = linesInSkuOrder.get(0);
            return Db.update(c, "WITH taken AS (" + TAKE + " RETURNING sku)"
                    + " UPDATE sandbox.reservation SET status = 'RESERVED', updated_at = now()"
                    + " WHERE reservation_key = ? AND EXISTS (SELECT 1 FROM taken)",
                    line.quantity(), line.sku(), line.quantity(), key) == 1;
        }
        Savepoint beforeStock = c.setSavepoint();
        for (Reservation.Line line : linesInSkuOrder) {
            if (Db.update(c, TAKE, line.quantity(), line.sku(), line.quantity()) == 0) {
                c.rollback(beforeStock);
                return false;
            }
        }
        c.releaseSavepoint(beforeStock);
        setStatus(c, key, ReservationStatus.RESERVED);
        return true;
    }

    /**
     * Takes a quantity of one SKU if that much is left: PostgreSQL re-checks the condition on the
     * latest row version after waiting for a concurrent writer, so stock never goes below zero.
     */
    private static final String TAKE =
            "UPDATE sandbox.stock SET available = available - ?, updated_at = now() WHERE sku = ? AND available >= ?";

    private static void returnStock(Connection c, List<Reservation.Line> lines) throws SQLException {
        List<Reservation.Line> inSkuOrder = new ArrayList<>(lines);
        inSkuOrder.sort(Comparator.comparing(Reservation.Line::sku));
        for (Reservation.Line line : inSkuOrder) {
            Db.update(c, """
                    INSERT INTO sandbox.stock (sku, available) VALUES (?, ?)
                    ON CONFLICT (sku) DO UPDATE
                    SET available = sandbox.stock.available + EXCLUDED.available, updated_at = now()""",
                    line.sku(), line.quantity());
        }
    }

    private static void setStatus(Connection c, String key, ReservationStatus status) throws SQLException {
        Db.update(c, "UPDATE sandbox.reservation SET status = ?, updated_at = now() WHERE reservation_key = ?",
                status.name(), key);
    }

    private static StockLevel stock(Connection c, String sku) throws SQLException {
        return Db.queryFirst(c, "SELECT coalesce((SELECT available FROM sandbox.stock WHERE sku = ?), 0), ("
                + HELD + "), coalesce((SELECT stocked FROM sandbox.stock WHERE sku = ?), 0)",
                rs -> new StockLevel(sku, rs.getLong(1), rs.getLong(2), rs.getLong(3)), sku, sku, sku).orElseThrow();
    }

    private static Optional<Reservation> find(Connection c, String key) throws SQLException {
        return read(Db.query(c, READ_RESERVATIONS + " WHERE r.reservation_key = ?" + ORDERED, InventoryStore::row,
                key)).stream().findFirst();
    }

    private static Row row(ResultSet rs) throws SQLException {
        return new Row(rs.getString("reservation_key"), rs.getString("order_id"),
                ReservationStatus.valueOf(rs.getString("status")), rs.getString("sku"), rs.getInt("quantity"));
    }

    /** Folds the joined rows (one per line, or one without line for a tombstone) into reservations. */
    private static List<Reservation> read(List<Row> rows) {
        Map<String, List<Row>> byKey = rows.stream()
                .collect(Collectors.groupingBy(Row::key, LinkedHashMap::new, Collectors.toList()));
        return byKey.values().stream().map(InventoryStore::reservation).toList();
    }

    private static Reservation reservation(List<Row> rows) {
        Row first = rows.get(0);
        List<Reservation.Line> lines = rows.stream().filter(row -> row.sku() != null)
                .map(row -> new Reservation.Line(row.sku(), row.quantity())).toList();
        return new Reservation(first.key(), first.orderId(), first.status(), lines);
    }

    /** One row of {@link #READ_RESERVATIONS}; {@code sku} is null for a tombstone. */
    private record Row(String key, String orderId, ReservationStatus status, String sku, int quantity) {}
}
