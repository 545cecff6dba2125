package org.sagas.orchestrator.resilience;

import java.util.Objects;

/**
 * The resilience stack could not get an answer from a dependency: the call was not made (breaker
 * open, bulkhead full, too little time left) or it failed transiently on every attempt allowed.
 *
 * <p>This is the signal for degraded mode: the caller decides what to do (park the order, retry
 * the compensation later). It never means the dependency said no. Immutable.
 */
public class DependencyUnavailable extends RuntimeException {

    /** Why the dependency could not be used. */
    public enum Reason {
        /** The circuit breaker is open, or half-open with all trial slots taken; nothing was sent. */
        BREAKER_OPEN,
        /** No bulkhead permit became free within the allowed wait; nothing was sent. */
        BULKHEAD_FULL,
        /** Less than the minimum useful budget was left before the deadline; nothing was sent. */
        DEADLINE_TOO_SHORT,
        /** Every allowed attempt failed transiently; the cause is the last failure. */
        RETRIES_EXHAUSTED,
        /** Like {@link #RETRIES_EXHAUSTED}, but the last attempt overran its timeout. */
        TIMEOUT
    }

    private final String dependency;
    private final Reason reason;

    /** Creates the exception for a call that was never sent. */
    public DependencyUnavailable(String dependency, Reason reason) {
        this(dependency, reason, null);
    }

    /** Creates the exception with the last transient failure as its cause (may be null). */
    public DependencyUnavailable(String dependency, Reason reason, Throwable cause) {
        super(Objects.requireNonNull(dependency, "dependency") + " unavailable: "
                + Objects.requireNonNull(reason, "reason"), cause);
        this.dependency = dependency;
        this.reason = reason;
    }

    /** Returns the name of the dependency, as in {@link ResilienceConfig#dependency()}. */
    public String dependency() {
        return dependency;
    }

    /** Returns why the dependency could not be used. */
    public Reason reason() {
        return reason;
    }
}
