package org.sagas.orchestrator.resilience;

import java.time.Duration;

/**
 * A dependency's usual answer time, a moving average of its answered attempts, and whether an
 * attempt that timed out was given a fair chance: its own attempt timeout, or at least {@value
 * #FAIR_MULTIPLE} times the usual answer time. An attempt cut shorter than that by the request's
 * deadline failed because the time went elsewhere (queued inside the product), so its timeout says
 * nothing about the dependency. Before the first answer any cut-short attempt counts as fair: with
 * nothing known, the dependency is not excused. Thread-safe.
 */
final class AnswerTime {
    static final int FAIR_MULTIPLE = 3;
    /** Weight of each new answer in the average. */
    private static final double WEIGHT = 0.05;

    private volatile double averageNanos = -1;

    void record(long nanos) {
        double before = averageNanos;
        // Races between two answers lose one sample at worst: an estimate, not a count.
        averageNanos = before < 0 ? nanos : before + WEIGHT * (nanos - before);
    }

    boolean wasFair(Duration allowed, Duration ownTimeout) {
        if (allowed.compareTo(ownTimeout) >= 0) {
            return true;
        }
        double average = averageNanos;
        return average < 0 || allowed.toNanos() >= FAIR_MULTIPLE * average;
    }

    /**
     * Whether an attempt allowed {@code allowed}, less than its own timeout, would most likely time
     * out: the dependency usually takes longer than that to answer. False before any answer.
     */
    boolean usuallyLongerThan(Duration allowed, Duration ownTimeout) {
        double average = averageNanos;
        return allowed.compareTo(ownTimeout) < 0 && average > allowed.toNanos();
    }

    /**
     * The shortest attempt that {@link #wasFair} would count: {@value #FAIR_MULTIPLE} times the
     * usual answer time, never more than the attempt's own timeout; zero before any answer (nothing
     * is known, so no call is refused for want of time).
     */
    Duration fairAttempt(Duration ownTimeout) {
        double average = averageNanos;
        if (average < 0) {
            return Duration.ZERO;
        }
        Duration fair = Duration.ofNanos((long) (FAIR_MULTIPLE * average));
        return fair.compareTo(ownTimeout) < 0 ? fair : ownTimeout;
    }
}
