package org.sagas.relay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Pre-fills the outbox while no relay runs, then times a relay draining it. */
final class DrainPhase {
    private static final int CHUNK = 20_000;

    private final BenchContext bench;

    DrainPhase(BenchContext bench) {
        this.bench = bench;
    }

    /** Inserts {@code rows} rows, {@code CHUNK} per transaction, spread over the configured aggregates. */
    void prefill(int rows) throws SQLException {
        try (Connection c = bench.dataSource().getConnection(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, correlation_id, payload)"
                        + " SELECT 'drain-' || (g % ?), ?, gen_random_uuid(), 'BenchEvent', NULL, ?"
                        + " FROM generate_series(?, ?) g")) {
            c.setAutoCommit(true);
            for (int from = 0; from < rows; from += CHUNK) {
                int to = Math.min(rows, from + CHUNK) - 1;
                insert.setInt(1, bench.options().aggregates());
                insert.setString(2, bench.topic());
                insert.setString(3, bench.payload(from));
                insert.setInt(4, from);
                insert.setInt(5, to);
                insert.executeUpdate();
                bench.out().printf("  drain: pre-filled %d/%d rows%n", to + 1, rows);
            }
        }
    }

    /**
     * Seconds from {@code start} (just before the relay was started) until all {@code rows} were
     * acknowledged and deleted.
     */
    double timeDrain(long start, long acknowledgedBefore, int rows) throws SQLException {
        long before = acknowledgedBefore;
        long nextReport = start + TimeUnit.SECONDS.toNanos(1);
        long deadline = start + TimeUnit.MINUTES.toNanos(10);
        while (true) {
            long done = bench.acknowledged() - before;
            long now = System.nanoTime();
            if (done >= rows && bench.outboxEmpty()) {
                break;
            }
            if (now > deadline) {
                throw new IllegalStateException("drain: only " + done + " of " + rows + " published in 10 minutes");
            }
            if (now > nextReport) {
                nextReport += TimeUnit.SECONDS.toNanos(1);
                bench.out().printf("  drain: %d/%d published%n", done, rows);
            }
            BenchContext.pause(Duration.ofMillis(done >= rows ? 5 : 20));
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        bench.out().printf("drain: %d rows in %.2f s = %.0f events/s%n", rows, seconds, rows / seconds);
        return seconds;
    }
}
