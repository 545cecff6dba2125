package org.sagas.relay.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;

/**
 * Writes outbox rows the way the saga engine does: each transaction bumps the version of a few
 * aggregate rows (the optimistic lock that serialises one aggregate's writers) and inserts one
 * outbox row per aggregate with the new version as its sequence number, payload {@code agg:seq}.
 * Several threads write the same aggregates concurrently, so ids are allocated out of commit
 * order across aggregates. A failed transaction (database restart) is retried with a new
 * connection: sequence numbers come from the database, so a retry never duplicates one.
 */
public final class SagaLikeWriter implements AutoCloseable {
    private final DataSource dataSource;
    private final String topic;
    private final List<String> aggregates;
    private final int aggregatesPerTransaction;
    private final long totalEvents;
    private final double eventsPerSecond;
    private final Runnable afterCommit;
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong failures = new AtomicLong();
    private final List<Thread> threads = new ArrayList<>();
    private volatile boolean stopped;

    private SagaLikeWriter(DataSource dataSource, String topic, List<String> aggregates, int aggregatesPerTransaction,
            long totalEvents, double eventsPerSecond, Runnable afterCommit) {
        this.dataSource = dataSource;
        this.topic = topic;
        this.aggregates = aggregates;
        this.aggregatesPerTransaction = aggregatesPerTransaction;
        this.totalEvents = totalEvents;
        this.eventsPerSecond = eventsPerSecond;
        this.afterCommit = afterCommit;
    }

    /** Creates the aggregate table (once per database) and rows {@code prefix-0..count-1}. */
    public static List<String> createAggregates(DataSource dataSource, String prefix, int count) throws SQLException {
        List<String> names = new ArrayList<>();
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement()) {
            s.execute("CREATE TABLE IF NOT EXISTS test_aggregate (aggregate_id text PRIMARY KEY, version int NOT NULL)");
            s.execute("INSERT INTO test_aggregate SELECT '" + prefix + "-' || g, 0 FROM generate_series(0, " + (count - 1)
                    + ") g ON CONFLICT DO NOTHING");
        }
        for (int i = 0; i < count; i++) {
            names.add(prefix + "-" + i);
        }
        return names;
    }

    /** The versions (= events written) of every aggregate, as committed. */
    public static Map<String, Integer> committedVersions(DataSource dataSource, String prefix) throws SQLException {
        Map<String, Integer> versions = new HashMap<>();
        try (Connection c = dataSource.getConnection();
                PreparedStatement s = c.prepareStatement(
                        "SELECT aggregate_id, version FROM test_aggregate WHERE aggregate_id LIKE ? AND version > 0")) {
            s.setString(1, prefix + "-%");
            try (ResultSet rs = s.executeQuery()) {
                while (rs.next()) {
                    versions.put(rs.getString(1), rs.getInt(2));
                }
            }
        }
        return versions;
    }

    /**
     * Starts {@code threads} writers producing {@code totalEvents} events in all (or until
     * {@link #stop()}), at most {@code eventsPerSecond} in all (0: as fast as possible).
     */
    public static SagaLikeWriter start(DataSource dataSource, String topic, List<String> aggregates, int threads,
            int aggregatesPerTransaction, long totalEvents, double eventsPerSecond, Runnable afterCommit) {
        SagaLikeWriter writer = new SagaLikeWriter(dataSource, topic, aggregates, aggregatesPerTransaction,
                totalEvents, eventsPerSecond, afterCommit);
        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(() -> writer.write(threads), "saga-like-writer-" + i);
            t.setDaemon(true);
            writer.threads.add(t);
            t.start();
        }
        return writer;
    }

    public long committed() {
        return committed.get();
    }

    public long failures() {
        return failures.get();
    }

    public boolean done() {
        return threads.stream().noneMatch(Thread::isAlive);
    }

    public void stop() {
        stopped = true;
    }

    @Override
    public void close() {
        stop();
        try {
            for (Thread t : threads) {
                t.join(30_000);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void write(int threadCount) {
        long started = System.nanoTime();
        double perThread = eventsPerSecond / threadCount;
        long mine = 0;
        Connection c = null;
        while (!stopped && committed.get() < totalEvents) {
            if (perThread > 0) {
                long due = started + (long) (mine / perThread * 1e9);
                LockSupport.parkNanos(due - System.nanoTime());
            }
            try {
                if (c == null) {
                    c = dataSource.getConnection();
                    c.setAutoCommit(true);
                    try (Statement s = c.createStatement()) {
                        // Tests are about the relay, not the writers' durability: skip the WAL flush wait.
                        s.execute("SET synchronous_commit = off");
                    }
                    c.setAutoCommit(false);
                }
                int n = transaction(c);
                c.commit();
                mine += n;
                committed.addAndGet(n);
                afterCommit.run();
            } catch (SQLException e) {
                failures.incrementAndGet();
                closeQuietly(c);
                c = null;
                // Simulates a saga worker retrying after its database came back.
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
        closeQuietly(c);
    }

    private int transaction(Connection c) throws SQLException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        TreeSet<String> chosen = new TreeSet<>();
        while (chosen.size() < aggregatesPerTransaction) {
            chosen.add(aggregates.get(random.nextInt(aggregates.size())));
        }
        // One round trip: lock the aggregates in a fixed order (no deadlocks between writers), bump
        // their versions, and append one outbox row each carrying the new version, as the saga
        // engine's optimistic-lock update followed by its outbox insert does.
        try (PreparedStatement write = c.prepareStatement("WITH locked AS (SELECT aggregate_id FROM test_aggregate"
                + " WHERE aggregate_id = ANY(?) ORDER BY aggregate_id FOR UPDATE),"
                + " bumped AS (UPDATE test_aggregate t SET version = t.version + 1 FROM locked"
                + "   WHERE t.aggregate_id = locked.aggregate_id RETURNING t.aggregate_id, t.version)"
                + " INSERT INTO outbox (aggregate_id, topic, message_id, message_type, correlation_id, payload)"
                + " SELECT aggregate_id, ?, gen_random_uuid(), 'TestEvent', aggregate_id, aggregate_id || ':' || version"
                + " FROM bumped ORDER BY aggregate_id")) {
            write.setArray(1, c.createArrayOf("text", chosen.toArray()));
            write.setString(2, topic);
            int written = write.executeUpdate();
            if (written != chosen.size()) {
                throw new IllegalStateException("wrote " + written + " rows for " + chosen.size() + " aggregates");
            }
        }
        if (random.nextInt(10) == 0) {
            // A slow transaction now and then: it holds ids that later-starting ones commit past.
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(random.nextInt(1, 5)));
        }
        return chosen.size();
    }

    private static void closeQuietly(Connection c) {
        if (c == null) {
            return;
        }
        try {
            c.rollback();
        } catch (SQLException ignored) {
            // broken already
        }
        try {
            c.close();
        } catch (SQLException ignored) {
            // broken already
        }
    }
}
