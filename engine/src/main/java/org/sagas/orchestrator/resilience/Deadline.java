package org.sagas.orchestrator.resilience;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Objects;

/**
 * An absolute point in time by which a request must be answered, propagated from the caller
 * (the {@code X-Deadline} header, epoch milliseconds) down to every remote call.
 *
 * <p>Immutable and thread-safe. Millisecond precision, because that is what travels on the wire.
 * Methods without a {@link Clock} use the system UTC clock; the overloads exist so tests need no
 * sleeping.
 *
 * @param epochMillis the deadline as milliseconds since the epoch
 */
public record Deadline(long epochMillis) {

    private static final Clock SYSTEM = Clock.systemUTC();

    /** Returns the deadline at {@code instant}; throws {@link NullPointerException} if null. */
    public static Deadline at(Instant instant) {
        return new Deadline(Objects.requireNonNull(instant, "instant").toEpochMilli());
    }

    /** Returns the deadline {@code budget} from now on the system clock. */
    public static Deadline after(Duration budget) {
        return after(budget, SYSTEM);
    }

    /**
     * Returns the deadline {@code budget} from now on {@code clock}.
     *
     * @throws IllegalArgumentException if {@code budget} is negative
     */
    public static Deadline after(Duration budget, Clock clock) {
        Objects.requireNonNull(budget, "budget");
        if (budget.isNegative()) {
            throw new IllegalArgumentException("budget must not be negative: " + budget);
        }
        return new Deadline(Math.addExact(clock.millis(), budget.toMillis()));
    }

    /** Returns the deadline at {@code epochMillis}, as sent in an {@code X-Deadline} header. */
    public static Deadline ofEpochMillis(long epochMillis) {
        return new Deadline(epochMillis);
    }

    /** Returns the time left on the system clock; never negative. */
    public Duration remaining() {
        return remaining(SYSTEM);
    }

    /** Returns the time left on {@code clock}; never negative. */
    public Duration remaining(Clock clock) {
        return Duration.ofMillis(Math.max(0, epochMillis - clock.millis()));
    }

    /** Returns true once no time is left on the system clock. */
    public boolean isExpired() {
        return isExpired(SYSTEM);
    }

    /** Returns true once no time is left on {@code clock}. */
    public boolean isExpired(Clock clock) {
        return remaining(clock).isZero();
    }

    /** Returns {@code min(own, remaining())}: a call's own timeout never outlives the request. */
    public Duration cap(Duration own) {
        return cap(own, SYSTEM);
    }

    /** Returns {@code min(own, remaining(clock))}. */
    public Duration cap(Duration own, Clock clock) {
        Objects.requireNonNull(own, "own");
        Duration remaining = remaining(clock);
        return own.compareTo(remaining) <= 0 ? own : remaining;
    }

    /** Returns this deadline as an instant. */
    public Instant toInstant() {
        return Instant.ofEpochMilli(epochMillis);
    }
}
