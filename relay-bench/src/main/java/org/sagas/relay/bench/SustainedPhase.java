package org.sagas.relay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.sagas.relay.OutboxRelay;

/**
 * Pushes many rows through the relay (two writers, 500 rows per transaction, pausing while more
 * than {@code MAX_BACKLOG} rows wait) and reports the outbox's size on disk during and after.
 */
final class SustainedPhase {
    private static final int WRITERS = 2;
    private static final int ROWS_PER_TRANSACTION = 500;
    private static final long MAX_BACKLOG = 50_000;

    private final BenchContext bench;
    private final OutboxRelay relay;
    private final AtomicLong written = new AtomicLong();
    private final AtomicReference<SQLException> failure = new AtomicReference<>();

    record Outcome(long eventsPerSecond, long peakBytes, long bytesAfter) {}

    SustainedPhase(BenchContext bench, OutboxRelay relay) {
        this.bench = bench;
        this.relay = relay;
    }

    Outcome run(long events) throws SQLException, InterruptedException {
        long acknowledgedBefore = bench.acknowledged();
        long start = System.nanoTime();
        List<Thread> writers = new ArrayList<>();
        for (int w = 0; w < WRITERS; w++) {
            Thread t = new Thread(() -> write(events, acknowledgedBefore), "bench-writer-" + w);
            t.setDaemon(true);
            writers.add(t);
            t.start();
        }
        long peak = 0;
        long nextReport = start + TimeUnit.SECONDS.toNanos(1);
        while (bench.acknowledged() - acknowledgedBefore < events) {
            if (failure.get() != null) {
                throw failure.get();
            }
            if (System.nanoTime() - start > TimeUnit.MINUTES.toNanos(15)) {
                throw new IllegalStateException("sustained: not done after 15 minutes");
            }
            if (System.nanoTime() > nextReport) {
                nextReport += TimeUnit.SECONDS.toNanos(1);
                long bytes = bench.outboxBytes();
                peak = Math.max(peak, bytes);
                bench.out().printf("  sustained: %d/%d written, %d published, outbox %.1f MB%n",
                        Math.min(written.get(), events), events,
                        bench.acknowledged() - acknowledgedBefore, bytes / 1e6);
            }
            BenchContext.pause(Duration.ofMillis(20));
        }
        for (Thread t : writers) {
            t.join();
        }
        bench.awaitEmpty(Duration.ofMinutes(1));
        double seconds = (System.nanoTime() - start) / 1e9;
        long rate = Math.round(events / seconds);
        // Leave the relay's housekeeping a moment to vacuum what the last batches deleted.
        BenchContext.pause(Duration.ofSeconds(3));
        long after = bench.outboxBytes();
        peak = Math.max(peak, after);
        bench.out().printf("sustained: %d rows in %.1f s = %d events/s; outbox peak %.1f MB, after %.1f MB%n", events,
                seconds, rate, peak / 1e6, after / 1e6);
        return new Outcome(rate, peak, after);
    }

    private void write(long events, long acknowledgedBefore) {
        try (Connection c = bench.dataSource().getConnection(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, correlation_id, payload)"
                        + " SELECT 'sustained-' || ((? + g) % ?), ?, gen_random_uuid(), 'BenchEvent', NULL, ?"
                        + " FROM generate_series(1, ?) g")) {
            c.setAutoCommit(true);
            while (true) {
                long from = written.getAndAdd(ROWS_PER_TRANSACTION);
                if (from >= events) {
                    return;
                }
                int rows = (int) Math.min(ROWS_PER_TRANSACTION, events - from);
                while (from - (bench.acknowledged() - acknowledgedBefore) > MAX_BACKLOG) {
                    BenchContext.pause(Duration.ofMillis(2));
                }
                insert.setLong(1, from);
                insert.setInt(2, bench.options().aggregates());
                insert.setString(3, bench.topic());
                insert.setString(4, bench.payload(from));
                insert.setInt(5, rows);
                insert.executeUpdate();
                relay.wakeUp();
            }
        } catch (SQLException e) {
            failure.compareAndSet(null, e);
        }
    }
}
