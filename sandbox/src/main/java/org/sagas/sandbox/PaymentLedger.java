package org.sagas.sandbox;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

/**
 * The payment sandbox's ledger in PostgreSQL (schema {@code sandbox}). The charge key is the
 * primary key: a charge is inserted once, and every replay, concurrent or not, reads that row.
 * Thread-safe.
 */
final class PaymentLedger {
    private static final String COLUMNS = "idempotency_key, order_id, amount_cents, currency, status";

    private final Db db;

    PaymentLedger(Db db) {
        this.db = db;
    }

    /** What a charge request found: the ledger row, and whether this request created it. */
    record Charged(ChargeRecord record, boolean created) {}

    /** Records a charge with {@code outcome} under {@code key}, unless the key has one already. */
    Charged charge(String key, ChargeRequest request, ChargeStatus outcome) {
        return db.withConnection(c -> {
            // A concurrent duplicate makes this insert wait for it to commit, then do nothing.
            Optional<ChargeRecord> created = Db.queryFirst(c, "INSERT INTO sandbox.charge (" + COLUMNS + ")"
                    + " VALUES (?, ?, ?, ?, ?) ON CONFLICT (idempotency_key) DO NOTHING RETURNING " + COLUMNS,
                    PaymentLedger::record, key, request.orderId(), request.amountCents(), request.currency(),
                    outcome.name());
            if (created.isPresent()) {
                return new Charged(created.get(), true);
            }
            return new Charged(find(c, key).orElseThrow(), false);
        });
    }

    Optional<ChargeRecord> find(String key) {
        return db.withConnection(c -> find(c, key));
    }

    /**
     * Refunds the capture under {@code chargeKey}, once, under {@code refundKey}. A charge that
     * is not CAPTURED stays as it is; a refund key seen before answers its charge as it is now.
     * Empty when there is no charge under {@code chargeKey} (and nothing is recorded).
     */
    Optional<ChargeRecord> refund(String refundKey, String chargeKey) {
        return db.inTransaction(c -> {
            Optional<String> earlier = refundedCharge(c, refundKey);
            if (earlier.isPresent()) {
                return find(c, earlier.get());
            }
            Optional<ChargeRecord> charge = Db.queryFirst(c,
                    "SELECT " + COLUMNS + " FROM sandbox.charge WHERE idempotency_key = ? FOR UPDATE",
                    PaymentLedger::record, chargeKey);
            if (charge.isEmpty()) {
                return Optional.empty();
            }
            int claimed = Db.update(c, """
                    INSERT INTO sandbox.refund_request (refund_key, charge_key) VALUES (?, ?)
                    ON CONFLICT (refund_key) DO NOTHING""", refundKey, chargeKey);
            if (claimed == 0) {
                // A concurrent duplicate of this refund committed first: answer as it does.
                return find(c, refundedCharge(c, refundKey).orElseThrow());
            }
            Db.update(c, """
                    UPDATE sandbox.charge SET status = 'REFUNDED', updated_at = clock_timestamp()
                    WHERE idempotency_key = ? AND status = 'CAPTURED'""", chargeKey);
            return find(c, chargeKey);
        });
    }

    /** The ledger of {@code orderId} (every charge when null), oldest first. */
    List<ChargeRecord> charges(String orderId) {
        return db.withConnection(c -> orderId == null
                ? Db.query(c, "SELECT " + COLUMNS + " FROM sandbox.charge ORDER BY created_at, idempotency_key",
                        PaymentLedger::record)
                : Db.query(c, "SELECT " + COLUMNS + " FROM sandbox.charge WHERE order_id = ?"
                        + " ORDER BY created_at, idempotency_key", PaymentLedger::record, orderId));
    }

    /** The page of the charge feed after {@code after} (see {@link FeedPage}). */
    FeedPage<ChargeChange> changes(FeedPage.After after) {
        List<ChargeChange> items = db.withConnection(c -> Db.query(c, "SELECT " + COLUMNS
                + ", updated_at, change_xid::text AS xid, change_seq FROM sandbox.charge WHERE" + FeedPage.where()
                + " ORDER BY change_xid, change_seq LIMIT ?", rs -> new ChargeChange(rs.getString("idempotency_key"),
                        rs.getString("order_id"), rs.getLong("amount_cents"), rs.getString("currency"),
                        ChargeStatus.valueOf(rs.getString("status")), rs.getTimestamp("updated_at").toInstant().toString(),
                        FeedPage.cursor(rs.getString("xid"), rs.getLong("change_seq"))),
                after.xid(), after.seq(), after.limit()));
        return new FeedPage<>(items, items.isEmpty() ? FeedPage.cursor(after.xid(), after.seq())
                : items.get(items.size() - 1).cursor());
    }

    private static Optional<String> refundedCharge(Connection c, String refundKey) throws SQLException {
        return Db.queryFirst(c, "SELECT charge_key FROM sandbox.refund_request WHERE refund_key = ?",
                rs -> rs.getString(1), refundKey);
    }

    private static Optional<ChargeRecord> find(Connection c, String key) throws SQLException {
        return Db.queryFirst(c, "SELECT " + COLUMNS + " FROM sandbox.charge WHERE idempotency_key = ?",
                PaymentLedger::record, key);
    }

    private static ChargeRecord record(ResultSet rs) throws SQLException {
        return new ChargeRecord(rs.getString("idempotency_key"), rs.getString("order_id"), rs.getLong("amount_cents"),
                rs.getString("currency"), ChargeStatus.valueOf(rs.getString("status")));
    }
}
