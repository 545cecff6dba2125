package org.sagas.relay.support;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import javax.sql.DataSource;

/** What {@code pg_locks} says about relay leases: shards leased per relay session. */
public final class Leases {
    private Leases() {}

    /** Shards leased, by the leasing session's {@code application_name}. */
    public static Map<String, Integer> byRelay(DataSource dataSource) throws SQLException {
        Map<String, Integer> leases = new HashMap<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT a.application_name, count(*) FROM pg_locks l"
                        + " JOIN pg_stat_activity a ON a.pid = l.pid"
                        + " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
                        + " AND l.classid::bigint = " + 0x6f627831L
                        + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                        + " GROUP BY a.application_name")) {
            while (rs.next()) {
                leases.put(rs.getString(1), rs.getInt(2));
            }
        }
        return leases;
    }

    public static int total(DataSource dataSource) throws SQLException {
        return byRelay(dataSource).values().stream().mapToInt(Integer::intValue).sum();
    }
}
