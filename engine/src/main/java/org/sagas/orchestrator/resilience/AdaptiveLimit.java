package org.sagas.orchestrator.resilience;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.OptionalInt;
import java.util.function.LongSupplier;

/**
 * A concurrency limit found at run time from how long the product itself takes to serve a request
 * (its <em>own time</em>: the request's time less what it spent waiting on participants), in the
 * manner of a Vegas or gradient limit. The samples of each window are averaged; the lowest window
 * average of the last {@code horizon} is the <em>baseline</em>, what a request costs when nothing
 * queues. A window averaging above {@code max(tolerance × baseline, baseline + slack)} means requests queue for the
 * product's own resources (cores, connections), and the limit shrinks in proportion; a window
 * whose in-flight count reached the limit without queueing grows it, fast while far from the
 * baseline, by one near it. A window where the limit did not bind leaves it as it is: no evidence.
 *
 * <p>What is limited is the product's own concurrency: the admitted requests using its cores and
 * connections at once, not counting those waiting on a participant, which use neither (see {@link
 * PriorityShedder}). A participant that answers slowly therefore never makes an idle product refuse
 * orders that degraded mode would park: a slow inventory is degraded mode's business, not
 * admission's (docs/decisions/0021). Only while the product is itself {@link #congested congested} do the
 * requests waiting on a participant count too: then their wait is likely the product's doing (its
 * cores are what would read the answers), and letting more in would only fill the participant's
 * bulkhead and park healthy orders.
 *
 * <p>Thread-safe: every method is synchronized, and each is a handful of arithmetic operations.
 */
public final class AdaptiveLimit {

    /**
     * @param floor the lowest limit, whatever the samples say
     * @param ceiling the highest limit (the configured in-flight ceiling)
     * @param initial the limit before the first window
     * @param window how long samples are gathered before the limit is judged
     * @param tolerance how many times the baseline a window may average before it counts as queueing
     * @param slack own time a window may average above the baseline in any case: a baseline of a few
     *     milliseconds doubles from noise alone, which is no queue worth refusing orders for
     * @param horizon how far back the baseline is looked for: a slower machine (or a colder JVM) is
     *     learnt within this time
     * @param lagLimit the scheduling lag (see {@link SchedulingLag}) a window may average: beyond it
     *     the machine's cores are oversubscribed, and every request, even one to be refused, waits
     *     for a core before it is read; each request meets it at every wake-up
     */
    public record Config(int floor, int ceiling, int initial, Duration window, double tolerance, Duration slack,
            Duration horizon, Duration lagLimit) {

        /**
         * The defaults: floor 4, initial 20, windows of 250 ms, tolerance 2, slack 40 ms, a 30 s
         * horizon, a scheduling lag of 10 ms at most.
         */
        public static Config defaults(int ceiling) {
            return new Config(Math.min(4, ceiling), ceiling, Math.min(20, ceiling), Duration.ofMillis(250), 2.0,
                    Duration.ofMillis(40), Duration.ofSeconds(30), Duration.ofMillis(10));
        }

        /** These values without a scheduling-lag limit. */
        public Config(int floor, int ceiling, int initial, Duration window, double tolerance, Duration slack,
                Duration horizon) {
            this(floor, ceiling, initial, window, tolerance, slack, horizon, Duration.ofDays(1));
        }

        /** @throws IllegalArgumentException unless {@code 1 <= floor <= initial <= ceiling}, a positive window and a tolerance above 1 */
        public Config {
            if (floor < 1 || initial < floor || ceiling < initial) {
                throw new IllegalArgumentException("limits need 1 <= floor <= initial <= ceiling, were " + floor + "/"
                        + initial + "/" + ceiling);
            }
            if (window.isNegative() || window.isZero() || horizon.compareTo(window) < 0 || slack.isNegative()) {
                throw new IllegalArgumentException("window must be positive and the horizon at least one window");
            }
            if (!(tolerance > 1.0)) {
                throw new IllegalArgumentException("tolerance must be above 1, was " + tolerance);
            }
        }
    }

    /** Fewer samples than this in a window: it is extended, since an average of two says little. */
    private static final int MIN_SAMPLES = 5;
    /** The most one window may cut the limit: a single slow window (a GC pause) does not empty it. */
    private static final double MAX_CUT = 0.6;

    private final Config config;
    private final long windowNanos;
    private final long horizonNanos;
    private final long slackNanos;
    private final LongSupplier lag;
    private final long lagLimitNanos;
    private long lastLag;
    private double limit;
    private long windowStart;
    private boolean started;
    private long sum;
    private int count;
    private int peakInFlight;
    private long lastAverage;
    private boolean congested;
    /** Window averages of the horizon, oldest first, as {time, average} pairs. */
    private final Deque<long[]> averages = new ArrayDeque<>();

    public AdaptiveLimit(Config config) {
        this(config, () -> 0);
    }

    /** @param lag the average scheduling lag since the last call, in nanoseconds ({@link SchedulingLag#takeAverageNanos}) */
    public AdaptiveLimit(Config config, LongSupplier lag) {
        this.config = config;
        this.lag = lag;
        this.lagLimitNanos = config.lagLimit().toNanos();
        this.windowNanos = config.window().toNanos();
        this.horizonNanos = config.horizon().toNanos();
        this.slackNanos = config.slack().toNanos();
        this.limit = config.initial();
    }

    /** Returns the limit now: admitted requests using the product's own resources at once. */
    public synchronized int limit() {
        return (int) Math.round(limit);
    }

    /**
     * Whether the last window, ended within the last two windows, found requests queueing for the
     * product's own resources. While it did, the product is the slow one, and waiting on a
     * participant is no reason to let more in. A judgement older than that has expired: with no
     * requests there is no queue. Before the first window nothing is known, and nothing is assumed:
     * a participant slow from the start must still be parked, not refused.
     */
    public synchronized boolean congested(long nowNanos) {
        return congested && nowNanos - windowStart < 2 * windowNanos;
    }

    /** Returns the baseline own time in nanoseconds, 0 before the first window. */
    public synchronized long baselineNanos() {
        return baseline();
    }

    /** Returns the last window's average scheduling lag in nanoseconds. */
    public synchronized long lastLagNanos() {
        return lastLag;
    }

    /** Returns the last window's average own time in nanoseconds, 0 before the first window. */
    public synchronized long lastAverageNanos() {
        return lastAverage;
    }

    /**
     * Records one admitted request's own time; judges the window once it is over.
     *
     * @param ownNanos the request's time in the product, participants' time left out
     * @param inFlight the requests using the product when it was admitted, itself included
     * @param nowNanos a monotonic clock reading ({@link System#nanoTime()})
     * @return the new limit when this sample closed a window that changed it
     */
    public synchronized OptionalInt sample(long ownNanos, int inFlight, long nowNanos) {
        if (!started) {
            started = true;
            windowStart = nowNanos;
        }
        sum += Math.max(0, ownNanos);
        count++;
        peakInFlight = Math.max(peakInFlight, inFlight);
        if (nowNanos - windowStart < windowNanos || count < MIN_SAMPLES) {
            return OptionalInt.empty();
        }
        long average = sum / count;
        int before = limit();
        judge(average, nowNanos);
        sum = 0;
        count = 0;
        peakInFlight = 0;
        windowStart = nowNanos;
        int after = limit();
        return after == before ? OptionalInt.empty() : OptionalInt.of(after);
    }

    private void judge(long average, long nowNanos) {
        lastAverage = average;
        while (!averages.isEmpty() && nowNanos - averages.peekFirst()[0] > horizonNanos) {
            averages.removeFirst();
        }
        averages.addLast(new long[] {nowNanos, average});
        long baseline = baseline();
        double threshold = Math.max(baseline * config.tolerance(), baseline + (double) slackNanos);
        lastLag = lag.getAsLong();
        // How far past its bound the worse of the two queues is: requests' own time, the cores' run queue.
        double pressure = Math.max(average / threshold, (double) lastLag / lagLimitNanos);
        congested = pressure > 1;
        if (congested) {
            // Requests queue inside the product: shrink in proportion to how far past the bound.
            limit *= Math.max(MAX_CUT, 1 / pressure);
        } else if (peakInFlight >= limit() - 1 && limit < config.ceiling()) {
            // The limit bound and nothing queued: grow, fast while the product is far from busy.
            limit = pressure < 0.5 ? limit * 1.25 + 1 : limit + 1;
        }
        limit = Math.max(config.floor(), Math.min(config.ceiling(), limit));
    }

    private long baseline() {
        long min = Long.MAX_VALUE;
        for (long[] a : averages) {
            min = Math.min(min, a[1]);
        }
        return min == Long.MAX_VALUE ? 0 : Math.max(1, min);
    }
}
