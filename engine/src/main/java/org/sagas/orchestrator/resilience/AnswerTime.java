package org.sagas.orchestrator.resilience;

import java.time.Duration;

/**
 * A dependency's usual answer time, a moving average of its answered attempts, and whether an
 * attempt that timed out was given a fair chance: its own attempt timeout, or at least {@value
 * #FAIR_MULTIPLE} times the usual answer time. An attempt cut shorter than that by the request's
 * deadline failed because the time went elsewhere (queued inside the product), so its timeout says
 * nothing about the dependency. Until the usual time is known ({@link MovingAverage}: a few answers,
 * so that a cold start's first one is not taken for it) any cut-short attempt counts as fair: with
 * nothing known, the dependency is not excused. Thread-safe.
 */
final class AnswerTime {
    static final int FAIR_MULTIPLE = 3;
    /** Usual answers after which a call still on the wire is overdue ({@link #overdueAfter}). */
    static final int OVERDUE_MULTIPLE = 2;
    /** Weight of each new answer in the average. */
    private static final double WEIGHT = 0.05;

    private final MovingAverage average = new MovingAverage(WEIGHT);

    /** When an attempt last got an answer ({@link System#nanoTime()}). */
    private volatile long lastAnswerNanos = System.nanoTime() - Long.MAX_VALUE / 2;

    void record(long nanos) {
        average.record(nanos);
        lastAnswerNanos = System.nanoTime();
    }

    /** Whether an attempt got an answer after {@code nanos} ({@link System#nanoTime()}). */
    boolean answeredSince(long nanos) {
        return lastAnswerNanos - nanos > 0;
    }

    boolean wasFair(Duration allowed, Duration ownTimeout) {
        if (allowed.compareTo(ownTimeout) >= 0) {
            return true;
        }
        return allowed.toNanos() >= FAIR_MULTIPLE * average.nanos().orElse(0);
    }

    /**
     * Whether an attempt allowed {@code allowed}, less than its own timeout, would most likely time
     * out: the dependency usually takes longer than that to answer. False while that is not known.
     */
    boolean usuallyLongerThan(Duration allowed, Duration ownTimeout) {
        return allowed.compareTo(ownTimeout) < 0 && average.nanos().orElse(0) > allowed.toNanos();
    }

    /**
     * The shortest attempt that {@link #wasFair} would count: {@value #FAIR_MULTIPLE} times the
     * usual answer time, never more than the attempt's own timeout; zero while that is not known (so
     * no call is refused for want of time).
     */
    Duration fairAttempt(Duration ownTimeout) {
        Duration fair = Duration.ofNanos((long) (FAIR_MULTIPLE * average.nanos().orElse(0)));
        return fair.compareTo(ownTimeout) < 0 ? fair : ownTimeout;
    }

    /**
     * How long a call on the wire may run before it is overdue: {@value #OVERDUE_MULTIPLE} usual
     * answers once that is known (never more than the attempt's own timeout), the timeout before.
     * Less than a fair attempt: under a steady load a slowing dependency fills a bulkhead before its
     * oldest call reaches three usual answers (24 places at 100 calls a second fill in 240 ms, three
     * answers of a cold product's 90 ms are 270), and the orders meanwhile would be refused.
     */
    Duration overdueAfter(Duration ownTimeout) {
        if (average.nanos().isEmpty()) {
            return ownTimeout;
        }
        Duration overdue = Duration.ofNanos((long) (OVERDUE_MULTIPLE * average.nanos().getAsDouble()));
        return overdue.compareTo(ownTimeout) < 0 ? overdue : ownTimeout;
    }
}
