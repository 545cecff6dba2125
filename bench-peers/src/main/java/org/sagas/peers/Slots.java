package org.sagas.peers;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The replication slots the Debezium rounds create (named {@code peers_…}): a slot left behind
 * keeps write-ahead log on the server for ever, so the benchmark drops any that remain, whether it
 * succeeded or failed.
 */
final class Slots {
    static final String PREFIX = "peers_";

    private Slots() {}

    /** Drops every inactive {@code peers_…} slot (waiting up to 30 s for active ones to stop); returns those still left. */
    static List<String> dropLeftovers(String jdbcUrl, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, user, password); Statement s = c.createStatement()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (true) {
                s.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots"
                        + " WHERE starts_with(slot_name, '" + PREFIX + "') AND NOT active");
                List<String> left = names(s);
                if (left.isEmpty() || System.nanoTime() > deadline) {
                    return left;
                }
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(200));
            }
        }
    }

    /** Every replication slot on the server, whoever made it. */
    static List<String> all(String jdbcUrl, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection(jdbcUrl, user, password); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery("SELECT slot_name FROM pg_replication_slots")) {
            List<String> names = new ArrayList<>();
            while (rs.next()) {
                names.add(rs.getString(1));
            }
            return names;
        }
    }

    private static List<String> names(Statement s) throws SQLException {
        List<String> names = new ArrayList<>();
        try (ResultSet rs = s.executeQuery("SELECT slot_name FROM pg_replication_slots WHERE starts_with(slot_name, '"
                + PREFIX + "')")) {
            while (rs.next()) {
                names.add(rs.getString(1));
            }
        }
        return names;
    }
}
