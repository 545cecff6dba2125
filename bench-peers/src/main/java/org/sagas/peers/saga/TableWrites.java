package org.sagas.peers.saga;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Rows written (inserted + updated + deleted) per table of a database, from
 * {@code pg_stat_user_tables}: where an engine's writes per order go. Read once the engine's
 * backends have exited, which is when PostgreSQL has all of their counters.
 */
final class TableWrites {
    private TableWrites() {}

    static Map<String, Long> read(Connection c) throws SQLException {
        Map<String, Long> rows = new HashMap<>();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery("SELECT schemaname || '.' || relname,"
                + " n_tup_ins + n_tup_upd + n_tup_del FROM pg_stat_user_tables")) {
            while (rs.next()) {
                rows.put(rs.getString(1), rs.getLong(2));
            }
        }
        return rows;
    }

    /** Rows written per order between two readings, the tables with most first, those with none left out. */
    static Map<String, Double> perOrder(Map<String, Long> before, Map<String, Long> after, int orders) {
        Map<String, Double> perOrder = new LinkedHashMap<>();
        after.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), e.getValue() - before.getOrDefault(e.getKey(), 0L)))
                .filter(e -> e.getValue() > 0)
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
                .forEach(e -> perOrder.put(e.getKey(), PhaseFigures.r2((double) e.getValue() / Math.max(1, orders))));
        return perOrder;
    }
}
