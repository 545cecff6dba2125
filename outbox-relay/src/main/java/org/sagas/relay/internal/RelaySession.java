package org.sagas.relay.internal;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import javax.sql.DataSource;

/**
 * The relay's one database session. Its session-level advisory locks are the relay's shard leases,
 * and every read and delete of outbox rows runs in it: rows are only read while the session that
 * holds their shard's lease is alive, and when the session dies (relay crash, network, PostgreSQL
 * restart) PostgreSQL releases the leases for another relay to take.
 *
 * <p>Not thread-safe: the relay loop's thread owns it. Every method throws {@link SQLException}
 * when the session fails; the caller then closes it and opens a new one.
 */
public final class RelaySession implements AutoCloseable {
    /** Advisory lock key space of the shard leases: {@code (SHARD_SPACE, shard)}. */
    static final int SHARD_SPACE = 0x6f627831;
    /** Advisory lock key space of relay membership: every live relay holds {@code (MEMBER_SPACE, 0)} shared. */
    static final int MEMBER_SPACE = 0x6f627830;

    private static final Executor DIRECT = Runnable::run;

    // No cursor: the relay always reads whatever unpublished rows remain, in id order, and deletes
    // rows only once acknowledged. A transaction that commits after a later id was published is
    // therefore simply found by the next read; nothing can be skipped. Order per aggregate holds
    // because an aggregate's rows are written by transactions serialised on the saga row (its
    // optimistic lock), so their ids grow in commit order. Rows of an aggregate that has a dead
    // letter wait behind it.
    //
    // The same statement deletes the previous round's acknowledged rows (one round trip instead of
    // two); its SELECT still sees them (same snapshot), hence the hashed NOT IN.
    //
    // Neither part may depend on the table's statistics (ADR 0012). A backlog typically arrives
    // after a VACUUM saw the queue empty but could not truncate it: the planner then believes the
    // table holds no rows however many pages it has, every index scan looks as cheap as any other,
    // and "id = ANY(?)" was served by the (shard, id) index, whose id is not its leading column:
    // one full index scan per array element, seconds per round on a 200 000-row backlog. So:
    //  - the delete looks each acknowledged row up by (shard, id), which every index on the table
    //    answers exactly, one row at a time (the OFFSET 0 fence keeps the planner from turning the
    //    look-ups into a join it could order the wrong way), and deletes what it found by ctid;
    //  - the read's ORDER BY id can only be served without a sort by the primary key, and the
    //    session runs with enable_sort off, so no plan that reads the whole backlog to sort it wins.
    private static final String DELETE_ACKNOWLEDGED = "DELETE FROM outbox WHERE ctid = ANY(ARRAY("
            + "SELECT found.ctid FROM unnest(?::int[], ?::bigint[]) AS acked(shard, id)"
            + " CROSS JOIN LATERAL (SELECT o.ctid FROM outbox o WHERE o.shard = acked.shard AND o.id = acked.id"
            + " OFFSET 0) found))";
    private static final String READ = "WITH acknowledged AS (" + DELETE_ACKNOWLEDGED + ")"
            + " SELECT o.id, o.shard, o.aggregate_id, o.topic, o.message_id, o.message_type, o.correlation_id,"
            + " o.payload, o.created_at, o.traceparent, o.more FROM outbox o WHERE %s o.id NOT IN (SELECT unnest(?::bigint[])) AND NOT EXISTS"
            + " (SELECT 1 FROM outbox_dead_letter d WHERE d.aggregate_id = o.aggregate_id) ORDER BY o.id LIMIT ?";
    private static final String READ_ALL = String.format(READ, "");
    private static final String READ_SHARDS = String.format(READ, "o.shard = ANY(?) AND");
    private static final String DEAD_LETTER = "WITH moved AS (DELETE FROM outbox WHERE shard = ? AND id = ? RETURNING *)"
            + " INSERT INTO outbox_dead_letter (id, aggregate_id, topic, message_id, message_type, correlation_id,"
            + " payload, created_at, traceparent, more, error, relay_instance)"
            + " SELECT id, aggregate_id, topic, message_id, message_type, correlation_id, payload, created_at,"
            + " traceparent, more, ?, ?"
            + " FROM moved";
    private static final String LOCKS = "SELECT l.classid::bigint AS space, l.objid::bigint AS key, l.pid"
            + " FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
            + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
            + " AND l.classid::bigint IN (" + SHARD_SPACE + ", " + MEMBER_SPACE + ")";

    private final Connection connection;
    private final String instanceId;
    private final PreparedStatement readAll;
    private final PreparedStatement readShards;
    private final PreparedStatement delete;
    private final PreparedStatement locks;
    private final PreparedStatement tryLock;
    private final PreparedStatement unlock;

    private RelaySession(Connection connection, String instanceId) throws SQLException {
        this.connection = connection;
        this.instanceId = instanceId;
        this.readAll = connection.prepareStatement(READ_ALL);
        this.readShards = connection.prepareStatement(READ_SHARDS);
        this.delete = connection.prepareStatement(DELETE_ACKNOWLEDGED);
        this.locks = connection.prepareStatement(LOCKS);
        this.tryLock = connection.prepareStatement("SELECT pg_try_advisory_lock(" + SHARD_SPACE + ", ?)");
        this.unlock = connection.prepareStatement("SELECT pg_advisory_unlock(" + SHARD_SPACE + ", ?)");
    }

    /** Opens a session and joins the relay group. */
    public static RelaySession open(DataSource dataSource, String instanceId, Duration networkTimeout)
            throws SQLException {
        Connection c = dataSource.getConnection();
        try {
            c.setAutoCommit(true);
            // A session that hangs must fail rather than keep its leases while publishing nothing.
            c.setNetworkTimeout(DIRECT, (int) networkTimeout.toMillis());
            try (Statement s = c.createStatement()) {
                s.execute("SELECT set_config('application_name', 'outbox-relay " + instanceId.replace("'", "''")
                        + "', false), set_config('statement_timeout', '" + networkTimeout.toMillis() + "', false),"
                        + " set_config('tcp_keepalives_idle', '10', false),"
                        + " set_config('tcp_keepalives_interval', '3', false),"
                        + " set_config('tcp_keepalives_count', '3', false),"
                        // Deletes need no flush to disk: a delete lost in a crash only means the
                        // row is published again (at least once), while waiting for the flush
                        // would hold up the next read behind every round.
                        + " set_config('synchronous_commit', 'off', false),"
                        // No plan of the session's statements may sort the outbox: see READ.
                        + " set_config('enable_sort', 'off', false),"
                        + " pg_advisory_lock_shared(" + MEMBER_SPACE + ", 0)");
            }
            return new RelaySession(c, instanceId);
        } catch (SQLException | RuntimeException e) {
            abort(c);
            throw e;
        }
    }

    /** How many relays are live on {@code c}'s database (sessions holding the membership lock). */
    public static int liveRelays(Connection c) throws SQLException {
        String sql = "SELECT count(DISTINCT l.pid) FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted"
                + " AND l.objsubid = 2 AND l.classid::bigint = " + MEMBER_SPACE
                + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())";
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getInt(1);
        }
    }

    /** Who holds leases now: live relays and the shards leased by anyone. */
    public LockView lockView() throws SQLException {
        int members = 0;
        Set<Integer> leased = new HashSet<>();
        Set<Integer> memberPids = new HashSet<>();
        try (ResultSet rs = locks.executeQuery()) {
            while (rs.next()) {
                if (rs.getLong("space") == MEMBER_SPACE) {
                    if (memberPids.add(rs.getInt("pid"))) {
                        members++;
                    }
                } else {
                    leased.add((int) rs.getLong("key"));
                }
            }
        }
        return new LockView(members, leased);
    }

    /** Takes the lease of {@code shard} if nobody holds it. */
    public boolean tryLease(int shard) throws SQLException {
        tryLock.setInt(1, shard);
        try (ResultSet rs = tryLock.executeQuery()) {
            return rs.next() && rs.getBoolean(1);
        }
    }

    public void release(int shard) throws SQLException {
        unlock.setInt(1, shard);
        try (ResultSet rs = unlock.executeQuery()) {
            rs.next();
        }
    }

    /**
     * Deletes {@code acknowledged} rows, then reads up to {@code limit} unpublished rows of
     * {@code shards} ({@code null}: all shards) in id order, in one statement.
     */
    public List<OutboxRow> deleteAndRead(Collection<OutboxRow> acknowledged, Collection<Integer> shards, int limit)
            throws SQLException {
        Array ids = ids(acknowledged);
        PreparedStatement read = shards == null ? readAll : readShards;
        int i = 1;
        read.setArray(i++, shardsOf(acknowledged));
        read.setArray(i++, ids);
        if (shards != null) {
            read.setArray(i++, connection.createArrayOf("int4", shards.toArray()));
        }
        read.setArray(i++, ids);
        read.setInt(i, limit);
        List<OutboxRow> rows = new ArrayList<>();
        try (ResultSet rs = read.executeQuery()) {
            while (rs.next()) {
                rows.add(new OutboxRow(
                        rs.getLong(1),
                        rs.getInt(2),
                        rs.getString(3),
                        rs.getString(4),
                        rs.getObject(5, UUID.class),
                        rs.getString(6),
                        rs.getString(7),
                        rs.getString(8),
                        rs.getObject(9, OffsetDateTime.class).toInstant(),
                        rs.getString(10),
                        OutboxRow.more(rs.getArray(11) == null ? null : (String[]) rs.getArray(11).getArray())));
            }
        }
        return rows;
    }

    /** Deletes acknowledged rows. */
    public void delete(Collection<OutboxRow> rows) throws SQLException {
        if (rows.isEmpty()) {
            return;
        }
        delete.setArray(1, shardsOf(rows));
        delete.setArray(2, ids(rows));
        delete.executeUpdate();
    }

    private Array ids(Collection<OutboxRow> rows) throws SQLException {
        return connection.createArrayOf("int8", rows.stream().map(OutboxRow::id).toArray());
    }

    private Array shardsOf(Collection<OutboxRow> rows) throws SQLException {
        return connection.createArrayOf("int4", rows.stream().map(OutboxRow::shard).toArray());
    }

    /** Moves {@code row} to the dead letters with {@code error}, in one statement. */
    public void deadLetter(OutboxRow row, String error) throws SQLException {
        try (PreparedStatement s = connection.prepareStatement(DEAD_LETTER)) {
            // By (shard, id), which every index answers exactly, whatever the statistics say.
            s.setInt(1, row.shard());
            s.setLong(2, row.id());
            s.setString(3, error);
            s.setString(4, instanceId);
            s.executeUpdate();
        }
    }

    /** Releases every lease and membership, then gives the connection back. */
    @Override
    public void close() {
        try (Statement s = connection.createStatement()) {
            s.execute("SELECT pg_advisory_unlock_all()");
            s.execute("RESET ALL");
        } catch (SQLException e) {
            // A pooled connection must not go back still holding our locks: drop it instead.
            abort(connection);
        }
        try {
            connection.close();
        } catch (SQLException ignored) {
            // the connection is gone already, and its locks with it
        }
    }

    private static void abort(Connection c) {
        try {
            c.abort(DIRECT);
        } catch (SQLException | RuntimeException ignored) {
            // already broken: the server has ended the session, and released its locks
        }
        try {
            c.close();
        } catch (SQLException ignored) {
            // idem
        }
    }

    /** A snapshot of the relay group: how many relays are live and which shards are leased. */
    public record LockView(int members, Set<Integer> leasedShards) {}
}
