package org.sagas.orchestrator.resilience;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.time.Duration;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sheds load by priority before any work is done. All requests share one in-flight count; a
 * request of priority {@code p} is admitted only while that count is below {@code p}'s limit. The
 * configured limits (by default high 90, normal 60, low 30) are ceilings; with an {@link
 * AdaptiveLimit} the adaptive one also applies, to the admitted requests <em>using the product</em>:
 * those in flight less those waiting on a participant now (reported through {@link
 * RemoteTime#watch}), or to all in flight while the product is {@linkplain AdaptiveLimit#congested
 * congested}. It is shared in the ceilings' proportions (normal gets two thirds of it, low
 * one third, high all of it, each at least one). As load grows,
 * low requests are shed first, then normal ones, and the slots above the normal limit stay free for
 * high ones.
 *
 * <p>A request may wait a bounded time for a slot ({@link #tryEnter(Priority, Duration)}); waiters
 * of a higher priority go first, and within a priority the oldest goes first.
 *
 * <p>Each rejection is reported to {@link ResilienceListener#onShed}, as is each request dropped
 * because its deadline had already passed ({@link #countShed}); the application counts them in
 * {@code saga_shed_total{priority}}. Thread-safe.
 */
public final class PriorityShedder implements RemoteTime.Watcher {

    /** Default in-flight limit for {@link Priority#HIGH}. */
    public static final int DEFAULT_HIGH_LIMIT = 90;
    /** Default in-flight limit for {@link Priority#NORMAL}. */
    public static final int DEFAULT_NORMAL_LIMIT = 60;
    /** Default in-flight limit for {@link Priority#LOW}. */
    public static final int DEFAULT_LOW_LIMIT = 30;

    private final Map<Priority, Integer> limits = new EnumMap<>(Priority.class);
    private final ResilienceListener listener;
    private final AdaptiveLimit adaptive;
    private final ReentrantLock lock = new ReentrantLock();
    private final Map<Priority, Condition> turns = new EnumMap<>(Priority.class);
    private final Map<Priority, Integer> waiting = new EnumMap<>(Priority.class);
    private final AtomicInteger inFlight = new AtomicInteger();
    private volatile long lastQueueTimeout = System.nanoTime() - Long.MAX_VALUE / 2;
    /** Admitted requests inside a remote call now: waiting on a participant, not using the product. */
    private final AtomicInteger remote = new AtomicInteger();

    /** Creates a shedder with the default limits, reporting to {@code listener}. */
    public PriorityShedder(ResilienceListener listener) {
        this(DEFAULT_HIGH_LIMIT, DEFAULT_NORMAL_LIMIT, DEFAULT_LOW_LIMIT, listener);
    }

    /**
     * Creates a shedder with explicit, fixed limits.
     *
     * @throws IllegalArgumentException unless {@code high >= normal >= low >= 1}: a lower priority
     *     with a higher limit would be preferred over a higher one
     */
    public PriorityShedder(int highLimit, int normalLimit, int lowLimit, ResilienceListener listener) {
        this(highLimit, normalLimit, lowLimit, null, listener);
    }

    /**
     * Creates a shedder whose limits are the adaptive one's share, under explicit ceilings.
     *
     * @param adaptive the limit for {@link Priority#HIGH}, found at run time; null for fixed limits
     * @throws IllegalArgumentException unless {@code high >= normal >= low >= 1}
     */
    public PriorityShedder(int highLimit, int normalLimit, int lowLimit, AdaptiveLimit adaptive,
            ResilienceListener listener) {
        if (lowLimit < 1 || normalLimit < lowLimit || highLimit < normalLimit) {
            throw new IllegalArgumentException("limits need high >= normal >= low >= 1, were "
                    + highLimit + "/" + normalLimit + "/" + lowLimit);
        }
        this.listener = new GuardedListener(Objects.requireNonNull(listener, "listener"));
        this.adaptive = adaptive;
        limits.put(Priority.HIGH, highLimit);
        limits.put(Priority.NORMAL, normalLimit);
        limits.put(Priority.LOW, lowLimit);
        for (Priority p : Priority.values()) {
            turns.put(p, lock.newCondition());
            waiting.put(p, 0);
        }
    }

    /**
     * Admits a request of {@code priority}, or returns empty (and reports the rejection) if the
     * in-flight count has reached its limit. Close the permit when the request is answered.
     */
    public Optional<Permit> tryEnter(Priority priority) {
        return tryEnter(priority, Duration.ZERO);
    }

    /**
     * Admits a request of {@code priority}, waiting at most {@code maxWait} for a slot behind the
     * requests of its priority and above that came first; empty (the rejection reported) if none
     * came free in time. An interrupted wait is a rejection, the interrupt status kept.
     */
    public Optional<Permit> tryEnter(Priority priority, Duration maxWait) {
        Objects.requireNonNull(priority, "priority");
        long left = Math.max(0, maxWait.toNanos());
        lock.lock();
        try {
            if (!mayEnter(priority)) {
                waiting.merge(priority, 1, Integer::sum);
                try {
                    while (!mayEnter(priority) && left > 0) {
                        left = turns.get(priority).awaitNanos(left);
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    left = 0;
                } finally {
                    waiting.merge(priority, -1, Integer::sum);
                }
                if (!mayEnter(priority)) {
                    if (maxWait.toNanos() > 0) {
                        lastQueueTimeout = System.nanoTime();
                    }
                    signalNext();
                    countShed(priority);
                    return Optional.empty();
                }
            }
            inFlight.incrementAndGet();
            return Optional.of(new Permit(this::release));
        } finally {
            lock.unlock();
        }
    }

    /** A slot is free for {@code priority}, and no request of a higher priority waits for one. */
    private boolean mayEnter(Priority priority) {
        if (inFlight.get() >= limits.get(priority) || adaptive != null && counted() >= limit(priority)) {
            return false;
        }
        for (Priority p : Priority.values()) {
            if (p.compareTo(priority) < 0 && waiting.get(p) > 0) {
                return false;
            }
        }
        return true;
    }

    private void release() {
        lock.lock();
        try {
            inFlight.decrementAndGet();
            signalNext();
        } finally {
            lock.unlock();
        }
    }

    /** What the adaptive limit bounds: every admitted request while the product is congested, else those using it. */
    private int counted() {
        return adaptive.congested(System.nanoTime()) ? inFlight.get() : usingProduct();
    }

    /** Whether the product itself queues now, as the adaptive limit judged its last window; never with fixed limits. */
    public boolean congested() {
        return adaptive != null && adaptive.congested(System.nanoTime());
    }

    /** Admitted requests in flight and not waiting on a participant. */
    public int usingProduct() {
        return Math.max(0, inFlight.get() - remote.get());
    }

    /** An admitted request went to wait on a participant: its slot on the product is free meanwhile. */
    @Override
    public void entered() {
        remote.incrementAndGet();
        if (adaptive != null) {
            lock.lock();
            try {
                signalNext();
            } finally {
                lock.unlock();
            }
        }
    }

    @Override
    public void left() {
        remote.decrementAndGet();
    }

    /** Wakes the first waiter of the highest priority that has one. */
    private void signalNext() {
        for (Priority p : Priority.values()) {
            if (waiting.get(p) > 0) {
                turns.get(p).signal();
                return;
            }
        }
    }

    /** Reports a request of {@code priority} dropped for another reason, e.g. an expired deadline. */
    public void countShed(Priority priority) {
        listener.onShed(Objects.requireNonNull(priority, "priority"));
    }

    /**
     * Feeds the adaptive limit one admitted request's own time (see {@link AdaptiveLimit#sample});
     * a change of the limit is reported to {@link ResilienceListener#onLimitChanged}. Does nothing
     * with fixed limits.
     */
    public void sample(long ownNanos, int usingAtEntry, long nowNanos) {
        if (adaptive == null) {
            return;
        }
        OptionalInt changed = adaptive.sample(ownNanos, usingAtEntry, nowNanos);
        if (changed.isPresent()) {
            listener.onLimitChanged(changed.getAsInt(), adaptive.baselineNanos(), adaptive.lastAverageNanos(),
                    adaptive.lastLagNanos());
            lock.lock();
            try {
                signalNext();
            } finally {
                lock.unlock();
            }
        }
    }

    /** Returns the number of requests currently admitted and not yet closed. */
    public int inFlight() {
        return inFlight.get();
    }

    /**
     * Whether a request that waited for a slot was refused within {@code window}: the queue is
     * overflowing, not just absorbing a burst.
     */
    public boolean queueOverflowedWithin(Duration window) {
        return System.nanoTime() - lastQueueTimeout < window.toNanos();
    }

    /** Returns the requests waiting for a slot now. */
    public int waiting() {
        lock.lock();
        try {
            return waiting.values().stream().mapToInt(Integer::intValue).sum();
        } finally {
            lock.unlock();
        }
    }

    /**
     * Returns the limit in force for {@code priority}: its in-flight ceiling, or with an adaptive
     * limit that limit's share (of the requests using the product), at least one.
     */
    public int limit(Priority priority) {
        int ceiling = limits.get(Objects.requireNonNull(priority, "priority"));
        if (adaptive == null) {
            return ceiling;
        }
        long share = Math.round((double) adaptive.limit() * ceiling / limits.get(Priority.HIGH));
        return (int) Math.max(1, Math.min(ceiling, share));
    }
}
