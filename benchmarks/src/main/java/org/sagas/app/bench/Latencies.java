package org.sagas.app.bench;

import java.util.Arrays;

/** Collected latencies in microseconds; percentiles by sorting. Thread-safe. */
public final class Latencies {
    private long[] values = new long[1024];
    private int size;

    public synchronized void add(long micros) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = micros;
    }

    public synchronized int count() {
        return size;
    }

    /** The {@code p}-th percentile (0–100) in milliseconds; 0 when empty. */
    public synchronized double percentileMillis(double p) {
        if (size == 0) {
            return 0;
        }
        long[] sorted = Arrays.copyOf(values, size);
        Arrays.sort(sorted);
        int index = (int) Math.ceil(p / 100.0 * size) - 1;
        return sorted[Math.max(0, Math.min(size - 1, index))] / 1000.0;
    }

    public synchronized double maxMillis() {
        return percentileMillis(100);
    }
}
