package org.sagas.adapters.messaging;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

/**
 * Records whose handling failed, set aside so the records behind them go on: each is tried again
 * after a back-off (doubling from {@link #FIRST_BACKOFF} to {@link #MAX_BACKOFF}) until it
 * succeeds or has failed for longer than the bound, when the loop dead-letters it. The lowest
 * offset waiting here per partition is as far as that partition's offset may be committed, so a
 * restart reads such records again. Used by one consumer thread; not thread-safe.
 */
final class RetryQueue {
    static final Duration FIRST_BACKOFF = Duration.ofMillis(100);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(5);

    /** A record waiting to be tried again. */
    static final class Waiting {
        final ConsumerRecord<String, byte[]> record;
        final long firstFailedNanos;
        int failures;
        long dueNanos;
        String lastError;

        Waiting(ConsumerRecord<String, byte[]> record, long now, String error) {
            this.record = record;
            this.firstFailedNanos = now;
            failedAgain(now, error);
        }

        void failedAgain(long now, String error) {
            failures++;
            lastError = error;
            long backoff = Math.min(MAX_BACKOFF.toNanos(), FIRST_BACKOFF.toNanos() << Math.min(20, failures - 1));
            dueNanos = now + backoff;
        }

        /** True once it has been failing for {@code bound} or longer. */
        boolean failingFor(Duration bound, long now) {
            return now - firstFailedNanos >= bound.toNanos();
        }
    }

    private final Map<TopicPartition, TreeMap<Long, Waiting>> byPartition = new HashMap<>();
    private int size;

    void add(ConsumerRecord<String, byte[]> record, long now, String error) {
        TreeMap<Long, Waiting> waiting = byPartition.computeIfAbsent(partition(record), p -> new TreeMap<>());
        if (waiting.putIfAbsent(record.offset(), new Waiting(record, now, error)) == null) {
            size++;
        }
    }

    void remove(Waiting w) {
        TreeMap<Long, Waiting> waiting = byPartition.get(partition(w.record));
        if (waiting != null && waiting.remove(w.record.offset()) != null) {
            size--;
            if (waiting.isEmpty()) {
                byPartition.remove(partition(w.record));
            }
        }
    }

    /** Those whose back-off has passed, oldest offset first per partition. */
    List<Waiting> due(long now) {
        List<Waiting> due = new ArrayList<>();
        byPartition.values().forEach(w -> w.values().stream().filter(x -> x.dueNanos <= now).forEach(due::add));
        return due;
    }

    /** When the earliest back-off ends ({@link System#nanoTime()} units), if any record waits. */
    OptionalLong nextDueNanos() {
        long next = Long.MAX_VALUE;
        for (TreeMap<Long, Waiting> w : byPartition.values()) {
            for (Waiting x : w.values()) {
                next = Math.min(next, x.dueNanos);
            }
        }
        return next == Long.MAX_VALUE ? OptionalLong.empty() : OptionalLong.of(next);
    }

    /** The lowest offset still waiting in {@code partition}, if any. */
    OptionalLong lowestOffset(TopicPartition partition) {
        TreeMap<Long, Waiting> waiting = byPartition.get(partition);
        return waiting == null || waiting.isEmpty() ? OptionalLong.empty() : OptionalLong.of(waiting.firstKey());
    }

    /** Forgets the records of partitions this consumer no longer owns (their new owner reads them again). */
    void drop(Collection<TopicPartition> partitions) {
        for (TopicPartition p : partitions) {
            TreeMap<Long, Waiting> gone = byPartition.remove(p);
            size -= gone == null ? 0 : gone.size();
        }
    }

    void clear() {
        byPartition.clear();
        size = 0;
    }

    int size() {
        return size;
    }

    private static TopicPartition partition(ConsumerRecord<String, byte[]> record) {
        return new TopicPartition(record.topic(), record.partition());
    }
}
