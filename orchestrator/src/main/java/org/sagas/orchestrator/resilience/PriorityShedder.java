package org.sagas.orchestrator.resilience;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Sheds load by priority before any work is done. All requests share one in-flight count; a
 * request of priority {@code p} is admitted only while that count is below {@code p}'s limit
 * (by default high 90, normal 60, low 30). As load grows, low requests are shed first, then
 * normal ones, and the slots between the normal and high limits stay free for high ones.
 *
 * <p>Each rejection is reported to {@link ResilienceListener#onShed}, as is each request dropped
 * because its deadline had already passed ({@link #countShed}); the application counts them in
 * {@code saga_shed_total{priority}}. Thread-safe and lock-free.
 */
public final class PriorityShedder {

    /** Default in-flight limit for {@link Priority#HIGH}. */
    public static final int DEFAULT_HIGH_LIMIT = 90;
    /** Default in-flight limit for {@link Priority#NORMAL}. */
    public static final int DEFAULT_NORMAL_LIMIT = 60;
    /** Default in-flight limit for {@link Priority#LOW}. */
    public static final int DEFAULT_LOW_LIMIT = 30;

    private final Map<Priority, Integer> limits = new EnumMap<>(Priority.class);
    private final ResilienceListener listener;
    private final AtomicInteger inFlight = new AtomicInteger();

    /** Creates a shedder with the default limits, reporting to {@code listener}. */
    public PriorityShedder(ResilienceListener listener) {
        this(DEFAULT_HIGH_LIMIT, DEFAULT_NORMAL_LIMIT, DEFAULT_LOW_LIMIT, listener);
    }

    /**
     * Creates a shedder with explicit limits.
     *
     * @throws IllegalArgumentException unless {@code high >= normal >= low >= 1}: a lower priority
     *     with a higher limit would be preferred over a higher one
     */
    public PriorityShedder(int highLimit, int normalLimit, int lowLimit, ResilienceListener listener) {
        if (lowLimit < 1 || normalLimit < lowLimit || highLimit < normalLimit) {
            throw new IllegalArgumentException("limits need high >= normal >= low >= 1, were "
                    + highLimit + "/" + normalLimit + "/" + lowLimit);
        }
        this.listener = new GuardedListener(Objects.requireNonNull(listener, "listener"));
        limits.put(Priority.HIGH, highLimit);
        limits.put(Priority.NORMAL, normalLimit);
        limits.put(Priority.LOW, lowLimit);
    }

    /**
     * Admits a request of {@code priority}, or returns empty (and reports the rejection) if the
     * in-flight count has reached its limit. Close the permit when the request is answered.
     */
    public Optional<Permit> tryEnter(Priority priority) {
        int limit = limits.get(Objects.requireNonNull(priority, "priority"));
        while (true) {
            int current = inFlight.get();
            if (current >= limit) {
                countShed(priority);
                return Optional.empty();
            }
            if (inFlight.compareAndSet(current, current + 1)) {
                return Optional.of(new Permit(inFlight::decrementAndGet));
            }
        }
    }

    /** Reports a request of {@code priority} dropped for another reason, e.g. an expired deadline. */
    public void countShed(Priority priority) {
        listener.onShed(Objects.requireNonNull(priority, "priority"));
    }

    /** Returns the number of requests currently admitted and not yet closed. */
    public int inFlight() {
        return inFlight.get();
    }

    /** Returns the in-flight limit for {@code priority}. */
    public int limit(Priority priority) {
        return limits.get(Objects.requireNonNull(priority, "priority"));
    }
}
