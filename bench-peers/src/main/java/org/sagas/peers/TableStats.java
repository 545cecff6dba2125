package org.sagas.peers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * What a contender left in its outbox table: dead and live tuples by the statistics
 * ({@code pg_stat_user_tables}), the same counted on the pages by {@code pgstattuple} (-1 when the
 * extension is not installed), and the size on disk, table + indexes + TOAST
 * ({@code pg_total_relation_size}).
 *
 * <p>The statistics are estimates: a vacuum that scanned pages before concurrent deletes were
 * reported overwrites their counts, so after a busy queue {@code n_dead_tup} can say 0 while the
 * pages still hold dead tuples; {@code pgstattuple} reads every page and is exact.
 */
record TableStats(String table, long deadTuples, long liveTuples, long exactDeadTuples, long exactLiveTuples,
        long bytes) {
    private static final String STATS = "SELECT n_dead_tup, n_live_tup, pg_total_relation_size(relid)"
            + " FROM pg_stat_user_tables WHERE schemaname = 'public' AND relname = ?";
    /** Client and replication connections still open on this database, other than ours. */
    private static final String OTHERS = "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            + " AND pid <> pg_backend_pid() AND backend_type IN ('client backend', 'walsender')";

    /**
     * Reads the figures once the contender has closed its connections: a backend flushes its
     * pending statistics when it exits, so the figures then count every change it made.
     */
    static TableStats read(String jdbcUrl, String user, String password, String table) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, user, password)) {
            awaitOthersGone(c);
            if (c.getMetaData().getDatabaseMajorVersion() >= 15) {
                try (Statement s = c.createStatement()) {
                    s.execute("SELECT pg_stat_force_next_flush()");
                }
            }
            long[] exact = counted(c, table);
            try (PreparedStatement s = c.prepareStatement(STATS)) {
                s.setString(1, table);
                try (ResultSet rs = s.executeQuery()) {
                    if (!rs.next()) {
                        throw new IllegalStateException("no statistics for table " + table);
                    }
                    return new TableStats(table, rs.getLong(1), rs.getLong(2), exact[0], exact[1], rs.getLong(3));
                }
            }
        }
    }

    /** Dead and live tuples as {@code pgstattuple} counts them on the pages, or -1 each without the extension. */
    private static long[] counted(Connection c, String table) throws SQLException {
        try (Statement s = c.createStatement()) {
            s.execute("CREATE EXTENSION IF NOT EXISTS pgstattuple");
        } catch (SQLException e) {
            // A server without the contrib modules: the statistics alone are reported.
            return new long[] {-1, -1};
        }
        try (PreparedStatement s = c.prepareStatement(
                "SELECT dead_tuple_count, tuple_count FROM pgstattuple(?::regclass)")) {
            s.setString(1, table);
            try (ResultSet rs = s.executeQuery()) {
                rs.next();
                return new long[] {rs.getLong(1), rs.getLong(2)};
            }
        }
    }

    private static void awaitOthersGone(Connection c) throws SQLException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        try (Statement s = c.createStatement()) {
            while (true) {
                try (ResultSet rs = s.executeQuery(OTHERS)) {
                    rs.next();
                    if (rs.getLong(1) == 0) {
                        return;
                    }
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("connections still open on the contender's database after 30 s");
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(50));
            }
        }
    }
}
