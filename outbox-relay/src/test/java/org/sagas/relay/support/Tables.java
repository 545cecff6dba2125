package org.sagas.relay.support;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import javax.sql.DataSource;

/** Small queries on the outbox tables for assertions. */
public final class Tables {
    private Tables() {}

    public static long outboxRows(DataSource dataSource) throws SQLException {
        return queryLong(dataSource, "SELECT count(*) FROM outbox");
    }

    /** Seconds since the oldest unpublished row was written, 0 when there is none. */
    public static double oldestAgeSeconds(DataSource dataSource) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT coalesce(extract(epoch FROM clock_timestamp() - min(created_at)), 0)"
                        + " FROM outbox")) {
            rs.next();
            return rs.getDouble(1);
        }
    }

    /** Bytes of the outbox table with its indexes and TOAST. */
    public static long outboxBytes(DataSource dataSource) throws SQLException {
        return queryLong(dataSource, "SELECT pg_total_relation_size('outbox')");
    }

    public static long queryLong(DataSource dataSource, String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }

    public static void execute(DataSource dataSource, String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute(sql);
        }
    }
}
