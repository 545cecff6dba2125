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
import java.util.function.LongSupplier;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's periodic chores, off the publishing path: refreshes the table-wide gauges, reports
 * aggregates blocked behind a dead letter, and vacuums the outbox (autovacuum visits a database at
 * most once per {@code autovacuum_naptime}, a minute by default, far too rarely for a queue table
 * that turns over thousands of rows a second). It vacuums when the table has {@code vacuumThreshold}
 * dead rows by the statistics, or when this relay alone deleted that many since its last vacuum
 * (statistics lag under load), or when the outbox is empty but its table still big after a
 * backlog (a vacuum then truncates the empty pages). {@code VACUUM (SKIP_LOCKED)}: when another
 * relay or autovacuum is at it, this one skips. Each run borrows a connection for a moment. Runs on
 * one scheduler thread; not thread-safe.
 */
public final class Housekeeping implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(Housekeeping.class);
    private static final long REMIND_NANOS = TimeUnit.MINUTES.toNanos(5);

    private static final String TABLE = "SELECT (SELECT count(*) FROM outbox) AS pending,"
            + " (SELECT (extract(epoch FROM clock_timestamp() - created_at) * 1000)::bigint"
            + "    FROM outbox ORDER BY id LIMIT 1) AS oldest_ms,"
            + " (SELECT count(*) FROM outbox_dead_letter) AS dead,"
            + " (SELECT n_dead_tup FROM pg_stat_user_tables WHERE relid = 'outbox'::regclass) AS dead_tuples,"
            + " pg_relation_size('outbox') AS heap_bytes";
    /** A table this big with nothing pending is worth a vacuum, which truncates its empty pages. */
    private static final long SHRINK_BYTES = 8L * 1024 * 1024;
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
    private final LongSupplier deletedRows;
    private long deletedAtLastVacuum;
    private final Map<String, Long> reportedBlocked = new HashMap<>();
    private boolean vacuumAllowed = true;
    private boolean failing;
    /** Whether the last run found nothing to publish, nothing dead-lettered and no deletions since the run before. */
    private boolean quiet;
    private long deletedAtLastRun = -1;

    public Housekeeping(DataSource dataSource, String instanceId, ShardLeases leases, RelayMetrics metrics,
            long vacuumThreshold, LongSupplier deletedRows) {
        this.dataSource = dataSource;
        this.instanceId = instanceId;
        this.leases = leases;
        this.metrics = metrics;
        this.vacuumThreshold = vacuumThreshold;
        this.deletedRows = deletedRows;
    }

    @Override
    public void run() {
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(true);
            long deleted = deletedRows.getAsLong();
            Table table = refresh(c);
            quiet = table.pending() == 0 && table.dead() == 0 && deleted == deletedAtLastRun;
            deletedAtLastRun = deleted;
            long deletedHere = deleted - deletedAtLastVacuum;
            if (vacuumAllowed && (table.deadTuples() >= vacuumThreshold || deletedHere >= vacuumThreshold
                    || (deletedHere > 0 && table.pending() == 0 && table.heapBytes() >= SHRINK_BYTES))) {
                deletedAtLastVacuum = deleted;
                vacuum(c);
            }
            if (failing) {
                failing = false;
                log.info("outbox relay {}: housekeeping reaches the database again", instanceId);
            }
        } catch (SQLException | RuntimeException e) {
            quiet = false;
            if (!failing) {
                failing = true;
                log.warn("outbox relay {}: housekeeping cannot reach the database ({}); gauges keep their last values",
                        instanceId, e.toString());
            }
        }
    }

    private record Table(long pending, long dead, long deadTuples, long heapBytes) {}

    /**
     * Whether the last run found an empty outbox, no dead letter and nothing deleted since the run
     * before: nothing for the gauges or a vacuum to catch up with, so the next run may wait longer.
     */
    public boolean quiet() {
        return quiet;
    }

    private Table refresh(Connection c) throws SQLException {
        long pending;
        long oldest;
        long dead;
        long deadTuples;
        long heapBytes;
        try (Statement s = c.createStatement(); ResultSet rs = s.executeQuery(TABLE)) {
            rs.next();
            pending = rs.getLong("pending");
            oldest = rs.getLong("oldest_ms");
            dead = rs.getLong("dead");
            deadTuples = rs.getLong("dead_tuples");
            heapBytes = rs.getLong("heap_bytes");
        }
        long blocked = dead == 0 ? 0 : reportBlocked(c);
        if (dead == 0 && !reportedBlocked.isEmpty()) {
            reportedBlocked.keySet().forEach(a -> log.info("outbox: aggregate {} is no longer blocked", a));
            reportedBlocked.clear();
        }
        metrics.table(pending, Math.max(0, oldest), dead, blocked);
        return new Table(pending, dead, deadTuples, heapBytes);
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
        if (!VacuumPermission.granted(c)) {
            vacuumAllowed = false;
            log.warn("outbox relay {}: this database user may not VACUUM outbox (it is neither its owner, nor"
                    + " allowed to maintain it); leaving it to autovacuum", instanceId);
            return;
        }
        long started = System.nanoTime();
        try (Statement s = c.createStatement()) {
            s.execute("VACUUM (SKIP_LOCKED) outbox");
            log.debug("outbox relay {}: vacuumed outbox in {} ms", instanceId,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
        } catch (SQLException e) {
            if (VacuumPermission.INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                vacuumAllowed = false;
                log.warn("outbox relay {}: not allowed to VACUUM outbox ({}); leaving it to autovacuum", instanceId,
                        e.getMessage());
            } else {
                log.warn("outbox relay {}: VACUUM outbox failed: {}", instanceId, e.getMessage());
            }
        }
    }
}
