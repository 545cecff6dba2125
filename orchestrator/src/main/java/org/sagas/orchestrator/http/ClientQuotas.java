package org.sagas.orchestrator.http;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * A rate limit per client (API key, or customer id on an open API): a token bucket holding
 * {@code burst} tokens, refilled at {@code ratePerSecond}; each order submission takes one. A
 * client over its rate is told when the next token comes ({@code 429} + {@code Retry-After}). A
 * client whose API key sets its own {@code rate} or {@code burst} ({@link ApiKeys.Limits}) has
 * those instead; a rate of 0 is no limit.
 *
 * <p>Buckets are kept per client seen; a full bucket is the same as none, so when there are more
 * than {@link #SWEEP_ABOVE} the full ones are dropped (at most once a second), which bounds memory
 * on an open API where anyone can name a new customer. Thread-safe.
 */
public final class ClientQuotas {
    static final int SWEEP_ABOVE = 10_000;
    private static final long NANOS_PER_SECOND = TimeUnit.SECONDS.toNanos(1);

    private final double ratePerSecond;
    private final double burst;
    private final LongSupplier nanoTime;
    private final ConcurrentHashMap<String, Bucket> buckets = new ConcurrentHashMap<>();
    private final AtomicLong sweptAt;

    /**
     * @param ratePerSecond tokens per second, unless a client's key says otherwise; 0 for no limit
     * @param burst tokens a client may spend at once, unless its key says otherwise (at least 1 when limited)
     */
    public ClientQuotas(double ratePerSecond, int burst, LongSupplier nanoTime) {
        if (ratePerSecond < 0 || (ratePerSecond > 0 && burst < 1)) {
            throw new IllegalArgumentException("need rate >= 0 and burst >= 1, were " + ratePerSecond + ", " + burst);
        }
        this.ratePerSecond = ratePerSecond;
        this.burst = burst;
        this.nanoTime = nanoTime;
        this.sweptAt = new AtomicLong(nanoTime.getAsLong());
    }

    /** No limit at all. */
    public static ClientQuotas unlimited() {
        return new ClientQuotas(0, 0, System::nanoTime);
    }

    /** Takes a token for {@code client}: 0 if it may go on, else the whole seconds until the next token (at least 1). */
    public long tryTake(String client) {
        return tryTake(client, ApiKeys.Limits.DEFAULTS);
    }

    /**
     * Takes a token for {@code client}, whose own {@code limits} replace the defaults where they are
     * set: 0 if it may go on, else the whole seconds until the next token (at least 1). A client's
     * limits are the same on every call (they come from its key).
     */
    public long tryTake(String client, ApiKeys.Limits limits) {
        double rate = limits.rate().isPresent() ? limits.rate().getAsInt() : ratePerSecond;
        if (rate == 0) {
            return 0;
        }
        double depth = Math.max(1, limits.burst().isPresent() ? limits.burst().getAsInt() : burst);
        long now = nanoTime.getAsLong();
        sweepIfCrowded(now);
        Bucket bucket = buckets.computeIfAbsent(client, c -> new Bucket(rate, depth, now));
        double missing = bucket.take(now);
        if (missing <= 0) {
            return 0;
        }
        return Math.max(1, (long) Math.ceil(missing / rate));
    }

    /**
     * The whole seconds until {@code client} has a token (at least 1), or 0 if it has one now;
     * takes none. A client never seen has a full bucket.
     */
    public long waitFor(String client) {
        if (ratePerSecond == 0) {
            return 0;
        }
        Bucket bucket = buckets.get(client);
        double missing = bucket == null ? 0 : bucket.missing(nanoTime.getAsLong());
        return missing <= 0 ? 0 : Math.max(1, (long) Math.ceil(missing / ratePerSecond));
    }

    /** Buckets held now (for tests and metrics). */
    int size() {
        return buckets.size();
    }

    private void sweepIfCrowded(long now) {
        long last = sweptAt.get();
        if (buckets.size() > SWEEP_ABOVE && now - last >= NANOS_PER_SECOND && sweptAt.compareAndSet(last, now)) {
            buckets.values().removeIf(b -> b.fullAt(now));
        }
    }

    /** One client's tokens, with its rate and depth. */
    private static final class Bucket {
        private final double rate;
        private final double burst;
        private double tokens;
        private long at;

        Bucket(double rate, double burst, long at) {
            this.rate = rate;
            this.burst = burst;
            this.tokens = burst;
            this.at = at;
        }

        /** Takes a token if there is one and returns 0, or returns how many tokens are missing. */
        synchronized double take(long now) {
            refill(now);
            if (tokens >= 1) {
                tokens -= 1;
                return 0;
            }
            return 1 - tokens;
        }

        /** How many tokens are missing for one to be taken (0: one can). */
        synchronized double missing(long now) {
            refill(now);
            return tokens >= 1 ? 0 : 1 - tokens;
        }

        synchronized boolean fullAt(long now) {
            refill(now);
            return tokens >= burst;
        }

        private void refill(long now) {
            if (now > at) {
                tokens = Math.min(burst, tokens + (now - at) * rate / NANOS_PER_SECOND);
                at = now;
            }
        }
    }
}
