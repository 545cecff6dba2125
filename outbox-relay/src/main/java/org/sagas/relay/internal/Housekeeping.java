package org.sagas.relay.internal;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's periodic chores, off the publishing path: refreshes the table-wide gauges, reports
 * aggregates blocked behind a dead letter, and vacuums the outbox once enough rows were deleted
 * (autovacuum visits a database at most once per {@code autovacuum_naptime}, a minute by default,
 * far too rarely for a queue table that turns over thousands of rows a second). Each run borrows a
 * connection for a moment. Runs on one scheduler thread; not thread-safe.
 */
public final class Housekeeping implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);
    private static final long REMIND_NANOS = TimeUnit.MINUTES.toNanos(5);

    private static final String TABLE = "SELECT (SELECT count(*) FROM outbox) AS pending,"
            + " (SELECT (extract(epoch FROM clock_timestamp() - created_at) * 1000)::bigint"
            + "    FROM outbox ORDER BY id LIMIT 1) AS oldest_ms,"
            + " (SELECT count(*) FROM outbox_dead_letter) AS dead,"
            + " (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'outbox'::regclass) AS dead_tuples";
    private static final String BLOCKED = "SELECT d.aggregate_id, d.id, d.error, w.waiting,"
            + " (abs(hashtext(d.aggregate_id)) % " + ShardLeases.SHARDS + ") AS shard"
            + " FROM outbox_dead_letter d CROSS JOIN LATERAL (SELECT count(*) AS waiting FROM outbox o"
            + "   WHERE o.shard = (abs(hashtext(d.aggregate_id)) % " + ShardLeases.SHARDS + ")::smallint"
            + "   AND o.aggregate_id = d.aggregate_id) w"
            + " WHERE w.waiting > 0 ORDER BY d.id LIMIT 10000";

    private final DataSource dataSource;
    private final String instanceId;
    private final ShardLeases leases;
    private final RelayMetrics metrics;
    private final long vacuumThreshold;
    private final Map<String, Long> reportedBlocked = new HashMap<>();
    private boolean vacuumAllowed = true;
    private boolean failing;

    public Housekeeping(DataSource dataSource, String instanceId, ShardLeases leases, RelayMetrics metrics,
            long vacuumThreshold) {
        this.dataSource = dataSource;
        this.instanceId = instanceId;
        this.leases = leases;
        this.metrics = metrics;
        this.vacuumThreshold = vacuumThreshold;
    }

    @Override
    public void run() {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            long deadTuples = refresh(c);
            // One relay vacuums: the one leasing shard 0.
            if (vacuumAllowed && deadTuples >= vacuumThreshold && leases.owned().contains(0)) {
                vacuum(c);
            }
            if (failing) {
                failing = false;
                log.info("outbox relay {}: housekeeping reaches the database again", instanceId);
            }
        } catch (SQLException | RuntimeException e) {
            if (!failing) {
                failing = true;
                log.warn("outbox relay {}: housekeeping cannot reach the database ({}); gauges keep their last values",
                        instanceId, e.toString());
            }
        }
    }

    private long refresh(Connection c) throws SQLException {
        long pending;
        long oldest;
        long dead;
        long deadTuples;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(TABLE)) {
            rs.next();
            pending = rs.getLong("pending");
            oldest = rs.getLong("oldest_ms");
            dead = rs.getLong("dead");
            deadTuples = rs.getLong("dead_tuples");
        }
        long blocked = dead == 0 ? 0 : reportBlocked(c);
        if (dead == 0 && !reportedBlocked.isEmpty()) {
            reportedBlocked.keySet().forEach(a -> log.info("outbox: aggregate {} is no longer blocked", a));
            reportedBlocked.clear();
        }
        metrics.table(pending, Math.max(0, oldest), dead, blocked);
        return deadTuples;
    }

    /** Logs each blocked aggregate of this relay's shards once, then every few minutes while it stays blocked. */
    private long reportBlocked(Connection c) throws SQLException {
        long blocked = 0;
        Set<String> stillBlocked = new HashSet<>();
        Set<Integer> mine = leases.owned();
        long now = System.nanoTime();
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(BLOCKED)) {
            while (rs.next()) {
                blocked++;
                String aggregate = rs.getString("aggregate_id");
                stillBlocked.add(aggregate);
                if (!mine.contains(rs.getInt("shard"))) {
                    continue;
                }
                Long last = reportedBlocked.get(aggregate);
                if (last == null || now - last > REMIND_NANOS) {
                    reportedBlocked.put(aggregate, now);
                    log.warn("outbox: aggregate {} is blocked: {} later row(s) wait behind dead-lettered outbox row {}"
                            + " ({}); replay or discard it with OutboxDeadLetters", aggregate, rs.getLong("waiting"),
                            rs.getLong("id"), rs.getString("error"));
                }
            }
        }
        reportedBlocked.keySet().removeIf(a -> {
            if (stillBlocked.contains(a)) {
                return false;
            }
            log.info("outbox: aggregate {} is no longer blocked", a);
            return true;
        });
        return blocked;
    }

    private void vacuum(Connection c) {
        long started = System.nanoTime();
        try (Statement s = c.createStatement()) {
            s.execute("VACUUM outbox");
            java.sql.SQLWarning warning = s.getWarnings();
            if (warning != null && warning.getMessage() != null && warning.getMessage().contains("skipping")) {
                vacuumAllowed = false;
                log.warn("outbox relay {}: not allowed to VACUUM outbox ({}); leaving it to autovacuum", instanceId,
                        warning.getMessage());
                return;
            }
            log.debug("outbox relay {}: vacuumed outbox in {} ms", instanceId,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } catch (SQLException e) {
            if ("42501".equals(e.getSQLState())) {
                vacuumAllowed = false;
                log.warn("outbox relay {}: not allowed to VACUUM outbox ({}); leaving it to autovacuum", instanceId,
                        e.getMessage());
            } else {
                log.warn("outbox relay {}: VACUUM outbox failed: {}", instanceId, e.getMessage());
            }
        }
    }
}
