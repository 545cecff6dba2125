package org.sagas.orchestrator.resilience;

import java.util.Objects;

/**
 * The resilience stack could not get an answer from a dependency: the call was not made (breaker
 * open, bulkhead full, too little time left) or it failed transiently on every attempt allowed.
 *
 * <p>This is the signal for degraded mode: the caller decides what to do (park the order, retry
 * the compensation later). It never means the dependency said no. {@link #mayHaveTakenEffect()}
 * tells an <em>unknown</em> outcome (an attempt was sent and may have acted) from one where
 * nothing happened; a caller that gives up on an unknown outcome undoes the call by its key.
 * Immutable.
 */
public class DependencyUnavailable extends RuntimeException {

    /** Why the dependency could not be used. */
    public enum Reason {
        /** The circuit breaker is open, or half-open with all trial slots taken; nothing was sent. */
        BREAKER_OPEN,
        /** No bulkhead permit became free within the allowed wait; nothing was sent. */
        BULKHEAD_FULL,
        /**
         * Less than the minimum useful budget, or less than the dependency usually takes to answer,
         * was left before the deadline; nothing was sent.
         */
        DEADLINE_TOO_SHORT,
        /** Every allowed attempt failed transiently; the cause is the last failure. */
        RETRIES_EXHAUSTED,
        /** Like {@link #RETRIES_EXHAUSTED}, but the last attempt overran its timeout. */
        TIMEOUT
    }

    private final String dependency;
    private final Reason reason;
    private final boolean mayHaveTakenEffect;
    private final boolean cutShort;

    /** Creates the exception for a call that was never sent. */
    public DependencyUnavailable(String dependency, Reason reason) {
        this(dependency, reason, null);
    }

    /**
     * Creates the exception with the last transient failure as its cause (may be null); the
     * outcome counts as unknown when that failure may have taken effect.
     */
    public DependencyUnavailable(String dependency, Reason reason, Throwable cause) {
        this(dependency, reason, cause, cause instanceof TransientFailure t && t.mayHaveTakenEffect());
    }

    /**
     * Creates the exception.
     *
     * @param mayHaveTakenEffect true when some attempt may have acted at the dependency
     */
    public DependencyUnavailable(String dependency, Reason reason, Throwable cause, boolean mayHaveTakenEffect) {
        this(dependency, reason, cause, mayHaveTakenEffect, false);
    }

    /**
     * Creates the exception for a call whose attempts were sent.
     *
     * @param mayHaveTakenEffect true when some attempt may have acted at the dependency
     * @param cutShort true when every attempt failed only because the product had left it too little
     *     time (its own slowness; docs/decisions/0021): no verdict on the dependency
     */
    public DependencyUnavailable(String dependency, Reason reason, Throwable cause, boolean mayHaveTakenEffect,
            boolean cutShort) {
        super(Objects.requireNonNull(dependency, "dependency") + " unavailable: "
                + Objects.requireNonNull(reason, "reason"), cause);
        this.dependency = dependency;
        this.reason = reason;
        this.mayHaveTakenEffect = mayHaveTakenEffect;
        this.cutShort = cutShort;
    }

    /** Returns the name of the dependency, as in {@link ResilienceConfig#dependency()}. */
    public String dependency() {
        return dependency;
    }

    /** Returns why the dependency could not be used. */
    public Reason reason() {
        return reason;
    }

    /**
     * Whether an attempt may have acted at the dependency (a timeout, a broken connection): the
     * outcome is unknown. False when nothing was sent or every attempt certainly did nothing.
     */
    public boolean mayHaveTakenEffect() {
        return mayHaveTakenEffect;
    }

    /**
     * Whether the attempts sent failed only for the time the product itself had left them: they ran
     * out of time with less than a fair chance. False for a call not sent and for a real failure.
     */
    public boolean cutShort() {
        return cutShort;
    }
}
