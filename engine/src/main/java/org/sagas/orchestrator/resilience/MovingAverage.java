package org.sagas.orchestrator.resilience;

import java.util.OptionalDouble;

/**
 * A moving average of durations that a cold start does not skew. Its first samples are averaged
 * plainly (each weighs 1/n until that falls to the average's own weight), so the first answer of a
 * cold JVM, often many times the usual one, is diluted by the next ones instead of decaying over
 * dozens; and it is not known at all before {@value #KNOWN_AFTER} samples, so one such answer is
 * never taken for the usual one. Thread-safe: races between two samples lose one at worst, as
 * befits an estimate.
 */
final class MovingAverage {
    /** Samples needed before the average is known. */
    static final int KNOWN_AFTER = 5;

    private final double weight;
    private volatile double average = -1;
    private volatile long samples;

    /** An average in which each new sample weighs {@code weight} once the first ones are in. */
    MovingAverage(double weight) {
        if (!(weight > 0 && weight <= 1)) {
            throw new IllegalArgumentException("weight must be in (0, 1]: " + weight);
        }
        this.weight = weight;
    }

    void record(long nanos) {
        long n = samples + 1;
        samples = n;
        double before = average;
        average = before < 0 ? nanos : before + Math.max(weight, 1.0 / n) * (nanos - before);
    }

    /** The average in nanoseconds, or empty before {@value #KNOWN_AFTER} samples. */
    OptionalDouble nanos() {
        double value = average;
        return samples < KNOWN_AFTER || value < 0 ? OptionalDouble.empty() : OptionalDouble.of(value);
    }
}
