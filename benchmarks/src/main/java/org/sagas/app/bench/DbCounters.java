package org.sagas.app.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * PostgreSQL's own counters, per database: transactions and rows written
 * ({@code pg_stat_database}), WAL written by each database's statements ({@code pg_stat_statements},
 * when loaded) and the cluster's WAL in all ({@code pg_current_wal_lsn}). Unlike times, they do
 * not drift with the machine's speed. PostgreSQL has no WAL counter per database: statements'
 * WAL is per database, the rest (commit records of autocommit transactions, checkpoints, vacuum)
 * only in the cluster's total; see {@link #walWithShare}. Immutable.
 */
public record DbCounters(Map<String, Long> transactions, Map<String, Long> rowsWritten,
        Map<String, Long> statementWal, long clusterWal) {

    /**
     * Reads the counters of {@code databases} on {@code c} (best on a database of its own, such as
     * {@code postgres}, so reading adds nothing to theirs).
     */
    public static DbCounters read(Connection c, String... databases) throws SQLException {
        Map<String, Long> transactions = new HashMap<>();
        Map<String, Long> rows = new HashMap<>();
        try (PreparedStatement s = c.prepareStatement("SELECT xact_commit + xact_rollback,"
                + " tup_inserted + tup_updated + tup_deleted FROM pg_stat_database WHERE datname = ?")) {
            for (String db : databases) {
                s.setString(1, db);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    transactions.put(db, rs.getLong(1));
                    rows.put(db, rs.getLong(2));
                }
            }
        }
        Map<String, Long> wal = new HashMap<>();
        if (statementStatistics(c)) {
            try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT d.datname,"
                    + " sum(s.wal_bytes)::bigint FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid"
                    + " GROUP BY d.datname")) {
                while (rs.next()) {
                    wal.put(rs.getString(1), rs.getLong(2));
                }
            }
        }
        long cluster;
        try (Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
            rs.next();
            cluster = rs.getLong(1);
        }
        return new DbCounters(transactions, rows, wal, cluster);
    }

    /** Whether {@code pg_stat_statements} is loaded and its view installed on {@code c}'s database. */
    public static boolean statementStatistics(Connection c) throws SQLException {
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT current_setting('shared_preload_libraries') LIKE '%pg_stat_statements%'"
                        + " AND EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'pg_stat_statements')")) {
            rs.next();
            return rs.getBoolean(1);
        }
    }

    /** Starts {@code pg_stat_statements} afresh (the benchmark's own server), when it is there. */
    public static void resetStatements(Connection c) throws SQLException {
        if (statementStatistics(c)) {
            try (Statement s = c.createStatement()) {
                s.execute("SELECT pg_stat_statements_reset()");
            }
        }
    }

    /**
     * The statements {@code db} ran most often since {@link #resetStatements}, per {@code orders}:
     * calls, rows, WAL bytes and execution time; empty without {@code pg_stat_statements}.
     */
    public static List<Map<String, Object>> topStatements(Connection c, String db, long orders, int limit)
            throws SQLException {
        List<Map<String, Object>> top = new ArrayList<>();
        if (orders == 0 || !statementStatistics(c)) {
            return top;
        }
        try (PreparedStatement s = c.prepareStatement("SELECT regexp_replace(s.query, '\\s+', ' ', 'g'), s.calls,"
                + " s.rows, s.wal_bytes::bigint, s.total_exec_time FROM pg_stat_statements s"
                + " JOIN pg_database d ON d.oid = s.dbid WHERE d.datname = ? ORDER BY s.calls DESC LIMIT ?")) {
            s.setString(1, db);
            s.setInt(2, limit);
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    Map<String, Object> row = new LinkedHashMap<>();
                    String q = rs.getString(1);
                    row.put("statement", q.length() > 160 ? q.substring(0, 160) + "…" : q);
                    row.put("calls_per_order", round(rs.getDouble(2) / orders));
                    row.put("rows_per_order", round(rs.getDouble(3) / orders));
                    row.put("wal_bytes_per_order", Math.round(rs.getDouble(4) / orders));
                    row.put("exec_ms_per_order", round(rs.getDouble(5) / orders));
                    top.add(row);
                }
            }
        }
        return top;
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }

    /** Each counter's growth since {@code before}. */
    public DbCounters minus(DbCounters before) {
        return new DbCounters(diff(transactions, before.transactions), diff(rowsWritten, before.rowsWritten),
                diff(statementWal, before.statementWal), clusterWal - before.clusterWal);
    }

    public long transactions(String db) {
        return transactions.getOrDefault(db, 0L);
    }

    public long rowsWritten(String db) {
        return rowsWritten.getOrDefault(db, 0L);
    }

    /**
     * WAL bytes of {@code db}: what its statements wrote, plus the cluster's WAL that no statement
     * accounts for, shared among {@code sharers} in proportion to their statements' WAL. Without
     * {@code pg_stat_statements}, the cluster's WAL shared in proportion to rows written.
     */
    public long walWithShare(String db, String... sharers) {
        long attributed = 0;
        long rowsAll = 0;
        for (String s : sharers) {
            attributed += statementWal.getOrDefault(s, 0L);
            rowsAll += rowsWritten(s);
        }
        if (attributed == 0) {
            return rowsAll == 0 ? 0 : Math.round((double) clusterWal * rowsWritten(db) / rowsAll);
        }
        long own = statementWal.getOrDefault(db, 0L);
        long rest = Math.max(0, clusterWal - statementWal.values().stream().mapToLong(Long::longValue).sum());
        return own + Math.round((double) rest * own / attributed);
    }

    private static Map<String, Long> diff(Map<String, Long> after, Map<String, Long> before) {
        Map<String, Long> d = new HashMap<>();
        after.forEach((k, v) -> d.put(k, v - before.getOrDefault(k, 0L)));
        return d;
    }
}
