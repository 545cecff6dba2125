package org.sagas.relay.bench;

import java.util.Arrays;

/** Percentiles of a set of latencies in nanoseconds, reported in milliseconds. */
record Latencies(int count, double p50Ms, double p90Ms, double p99Ms, double maxMs) {

    static Latencies of(long[] nanos) {
        if (nanos.length == 0) {
            return new Latencies(0, Double.NaN, Double.NaN, Double.NaN, Double.NaN);
        }
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        return new Latencies(sorted.length, ms(percentile(sorted, 0.50)), ms(percentile(sorted, 0.90)),
                ms(percentile(sorted, 0.99)), ms(sorted[sorted.length - 1]));
    }

    /** Nearest-rank percentile. */
    private static long percentile(long[] sorted, double p) {
        int rank = (int) Math.ceil(p * sorted.length);
        return sorted[Math.max(0, Math.min(sorted.length - 1, rank - 1))];
    }

    private static double ms(long nanos) {
        return Math.round(nanos / 1_000.0) / 1_000.0;
    }
}
