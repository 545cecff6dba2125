package org.sagas.relay.bench;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.sagas.relay.OutboxRelay;

/**
 * One writer commits one row per transaction at a fixed rate; each row's commit → acknowledgement
 * time is measured. The schedule is fixed in advance, so a slow commit does not slow the rate.
 */
final class SteadyPhase {
    private final BenchContext bench;
    private final OutboxRelay relay;
    private long sequence;

    SteadyPhase(BenchContext bench, OutboxRelay relay) {
        this.bench = bench;
        this.relay = relay;
    }

    Latencies run(String label, Duration duration, boolean wakeUp) throws SQLException {
        int rate = bench.options().steadyEventsPerSecond();
        int events = (int) Math.max(0, duration.toMillis() * rate / 1000);
        UUID[] ids = new UUID[events];
        long[] committedAt = new long[events];
        Map<UUID, Long> acks = bench.watch();
        long interval = TimeUnit.SECONDS.toNanos(1) / rate;
        try (Connection c = bench.dataSource().getConnection(); PreparedStatement insert =
                c.prepareStatement(BenchContext.INSERT)) {
            c.setAutoCommit(true);
            long start = System.nanoTime();
            long nextReport = start + TimeUnit.SECONDS.toNanos(1);
            for (int i = 0; i < events; i++) {
                LockSupport.parkNanos(start + i * interval - System.nanoTime());
                long seq = sequence++;
                ids[i] = UUID.randomUUID();
                insert.setString(1, "order-" + (seq % 1000));
                insert.setString(2, bench.topic());
                insert.setObject(3, ids[i]);
                insert.setString(4, "bench-" + seq);
                insert.setString(5, bench.payload(seq));
                insert.executeUpdate();
                committedAt[i] = System.nanoTime();
                if (wakeUp) {
                    relay.wakeUp();
                }
                if (committedAt[i] > nextReport) {
                    nextReport += TimeUnit.SECONDS.toNanos(1);
                    bench.out().printf("  %s: %d/%d committed, %d acknowledged%n", label, i + 1, events, acks.size());
                }
            }
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (acks.size() < events && System.nanoTime() < deadline) {
            BenchContext.pause(Duration.ofMillis(10));
        }
        long[] latencies = new long[events];
        int measured = 0;
        for (int i = 0; i < events; i++) {
            Long ack = acks.get(ids[i]);
            if (ack != null) {
                latencies[measured++] = Math.max(0, ack - committedAt[i]);
            }
        }
        if (measured < events) {
            throw new IllegalStateException(label + ": only " + measured + " of " + events + " acknowledged in time");
        }
        Latencies result = Latencies.of(latencies);
        bench.out().printf("%s: %d events at %d/s, commit -> ack p50 %.3f ms, p90 %.3f ms, p99 %.3f ms,"
                + " max %.3f ms%n", label, events, rate, result.p50Ms(), result.p90Ms(), result.p99Ms(), result.maxMs());
        return result;
    }
}
