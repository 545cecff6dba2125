package org.sagas.relay.bench;

import com.zaxxer.hikari.HikariDataSource;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.Infrastructure;

/**
 * Measures what {@code NOTIFY} inside every writing transaction costs (docs/decisions/0011):
 * {@code NotifyCostRunner [threads [seconds]]}. Concurrent writers commit one outbox row per
 * transaction, the way the saga engine does, first plainly, then with {@code pg_notify} in the same
 * transaction; prints commits per second and commit latency for each. At commit PostgreSQL takes
 * one database-wide lock for every transaction that notified and holds it through the WAL flush,
 * so such commits cannot share a flush (group commit).
 */
public final class NotifyCostRunner {
    private NotifyCostRunner() {}

    public static void main(String[] args) throws Exception {
        int threads = args.length > 0 ? Integer.parseInt(args[0]) : 16;
        int seconds = args.length > 1 ? Integer.parseInt(args[1]) : 10;
        Infrastructure infra = Infrastructure.get();
        String database = "notifycost_" + ProcessHandle.current().pid();
        try (HikariDataSource ds = infra.newDatabase(database, threads + 2)) {
            Migrations.apply(ds);
            for (int round = 0; round < 2; round++) {
                for (boolean notify : new boolean[] {false, true}) {
                    measure(ds, threads, seconds, notify);
                    try (Connection c = ds.getConnection(); Statement s = c.createStatement()) {
                        s.execute("TRUNCATE outbox");
                    }
                }
            }
        }
        System.exit(0);
    }

    private static void measure(HikariDataSource ds, int threads, int seconds, boolean notify) throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        List<long[]> latencies = new ArrayList<>();
        List<Thread> writers = new ArrayList<>();
        int[] counts = new int[threads];
        for (int t = 0; t < threads; t++) {
            long[] mine = new long[2_000_000];
            latencies.add(mine);
            int index = t;
            Thread w = new Thread(() -> {
                try (Connection c = ds.getConnection(); PreparedStatement insert = c.prepareStatement(
                        "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, correlation_id, payload)"
                                + " VALUES (?, 'cost', ?, 'Cost', NULL, ?)");
                        PreparedStatement ping = c.prepareStatement("SELECT pg_notify('outbox', '')")) {
                    c.setAutoCommit(false);
                    int n = 0;
                    while (!stop.get() && n < mine.length) {
                        long started = System.nanoTime();
                        insert.setString(1, "order-" + index + "-" + n);
                        insert.setObject(2, UUID.randomUUID());
                        insert.setString(3, "{\"pad\":\"" + "x".repeat(180) + "\"}");
                        insert.executeUpdate();
                        if (notify) {
                            ping.executeQuery().close();
                        }
                        c.commit();
                        mine[n++] = System.nanoTime() - started;
                    }
                    counts[index] = n;
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            writers.add(w);
            w.start();
        }
        TimeUnit.SECONDS.sleep(seconds);
        stop.set(true);
        for (Thread w : writers) {
            w.join();
        }
        int total = Arrays.stream(counts).sum();
        long[] all = new long[total];
        int at = 0;
        for (int t = 0; t < threads; t++) {
            System.arraycopy(latencies.get(t), 0, all, at, counts[t]);
            at += counts[t];
        }
        Latencies l = Latencies.of(all);
        System.out.printf("%-16s %2d writers: %6.0f commits/s, transaction p50 %.2f ms, p99 %.2f ms, max %.1f ms%n",
                notify ? "with NOTIFY" : "without NOTIFY", threads, total / (double) seconds, l.p50Ms(), l.p99Ms(),
                l.maxMs());
    }
}
