package org.sagas.peers;

import java.io.PrintStream;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * The same measurement for every contender: one writer commits one message per transaction at a
 * fixed rate; the contender reports each message's acknowledgement by the broker
 * ({@link #acknowledged}); commit → acknowledgement is taken per message id, both clocks
 * {@code System.nanoTime()} in this JVM. Not thread-safe except {@link #acknowledged}.
 */
final class SteadyWriter {
    /** Commits one message: returns once its transaction has committed. */
    @FunctionalInterface
    interface Commit {
        void commit(UUID messageId, long sequence) throws Exception;
    }

    private final Map<UUID, Long> acks = new ConcurrentHashMap<>();

    void acknowledged(UUID messageId, long ackNanoTime) {
        acks.put(messageId, ackNanoTime);
    }

    /** Runs {@code warmUp} unmeasured, then {@code duration} measured; returns p50/p90/p99/max in ms. */
    Map<String, Object> run(String label, Commit commit, int perSecond, Duration warmUp, Duration duration,
            PrintStream out) throws Exception {
        measure(label + " warm-up", commit, perSecond, warmUp, out);
        return measure(label, commit, perSecond, duration, out);
    }

    private Map<String, Object> measure(String label, Commit commit, int perSecond, Duration duration,
            PrintStream out) throws Exception {
        int events = (int) (duration.toMillis() * perSecond / 1000);
        UUID[] ids = new UUID[events];
        long[] committed = new long[events];
        long interval = TimeUnit.SECONDS.toNanos(1) / perSecond;
        long start = System.nanoTime();
        for (int i = 0; i < events; i++) {
            LockSupport.parkNanos(start + i * interval - System.nanoTime());
            ids[i] = UUID.randomUUID();
            commit.commit(ids[i], i);
            committed[i] = System.nanoTime();
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        long[] latencies = new long[events];
        int done = 0;
        while (done < events && System.nanoTime() < deadline) {
            done = 0;
            for (int i = 0; i < events; i++) {
                Long ack = acks.get(ids[i]);
                if (ack != null) {
                    latencies[done++] = Math.max(0, ack - committed[i]);
                }
            }
            if (done < events) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(100));
            }
        }
        if (done < events) {
            throw new IllegalStateException(label + ": only " + done + " of " + events + " acknowledged");
        }
        Arrays.sort(latencies);
        Map<String, Object> figures = new LinkedHashMap<>();
        figures.put("events", events);
        figures.put("p50_ms", ms(latencies, 0.50));
        figures.put("p90_ms", ms(latencies, 0.90));
        figures.put("p99_ms", ms(latencies, 0.99));
        figures.put("max_ms", Math.round(latencies[events - 1] / 1_000.0) / 1_000.0);
        out.printf("%s: %s%n", label, figures);
        return figures;
    }

    private static double ms(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return Math.round(sorted[Math.max(0, rank - 1)] / 1_000.0) / 1_000.0;
    }
}
