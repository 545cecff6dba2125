package org.sagas.peers.saga;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Follows the client backends of the engines' PostgreSQL every 250 ms: which database and
 * {@code application_name} each serves and how much CPU it has used, kept after it exits (its last
 * reading stands in for its total). An engine's backends are those on its own database, the
 * benchmark's own ({@value Contender#HARNESS}) left out: by {@code application_name} alone the
 * product's relay would be missed, since it renames its session {@code outbox-relay <id>}.
 * Thread-safe.
 */
final class BackendSampler implements AutoCloseable {
    /** One backend as last seen. */
    record Backend(String database, String applicationName, long cpuNanos) {}

    private final Connection monitor;
    private final Map<Long, Backend> seen = new ConcurrentHashMap<>();
    private final Thread thread;
    private volatile boolean running = true;

    BackendSampler(Connection monitor) {
        this.monitor = monitor;
        this.thread = new Thread(this::loop, "backend-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        while (running) {
            try {
                sample();
                Thread.sleep(250);
            } catch (InterruptedException e) {
                return;
            } catch (SQLException e) {
                if (running) {
                    System.err.println("backend sampler: " + e.getMessage());
                }
            }
        }
    }

    /** Reads every client backend now; also called right before a snapshot. */
    synchronized void sample() throws SQLException {
        try (Statement s = monitor.createStatement(); ResultSet rs = s.executeQuery("SELECT pid, datname,"
                + " application_name FROM pg_stat_activity WHERE backend_type = 'client backend'")) {
            while (rs.next()) {
                long pid = rs.getLong(1);
                long cpu = ProcStat.ownNanos(pid);
                if (cpu >= 0) {
                    seen.put(pid, new Backend(rs.getString(2), rs.getString(3), cpu));
                }
            }
        }
    }

    /** Every backend seen so far, with its latest reading. */
    Map<Long, Backend> snapshot() throws SQLException {
        sample();
        return new HashMap<>(seen);
    }

    /** CPU the backends of {@code database} (the harness's left out) used between two snapshots. */
    static long engineNanos(Map<Long, Backend> before, Map<Long, Backend> after, String database) {
        long total = 0;
        for (Map.Entry<Long, Backend> e : after.entrySet()) {
            Backend b = e.getValue();
            if (database.equals(b.database()) && !Contender.HARNESS.equals(b.applicationName())) {
                Backend was = before.get(e.getKey());
                total += b.cpuNanos() - (was == null ? 0 : was.cpuNanos());
            }
        }
        return total;
    }

    /** CPU every client backend used between two snapshots. */
    static long allNanos(Map<Long, Backend> before, Map<Long, Backend> after) {
        long total = 0;
        for (Map.Entry<Long, Backend> e : after.entrySet()) {
            Backend was = before.get(e.getKey());
            total += e.getValue().cpuNanos() - (was == null ? 0 : was.cpuNanos());
        }
        return total;
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
    }
}
