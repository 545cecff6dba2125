package org.sagas.orchestrator.resilience;

import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;

/**
 * What a {@link ResilientDependency} and the {@link PriorityShedder} report, for metrics and logs
 * bound at the edge (the package itself knows no metrics library). Every method has an empty default, so a listener
 * implements only what it needs; {@link #NONE} ignores everything.
 *
 * <p>Methods are called on the thread making the call (on the thread causing the transition for
 * {@link #onStateChange}, with the breaker locked), so they must be quick and must not block.
 * An exception thrown from an event method is logged and does not affect the call; one thrown
 * from {@link #onCreated} fails the creation. Implementations must be thread-safe.
 */
public interface ResilienceListener {

    /** A listener that ignores every event. */
    ResilienceListener NONE = new ResilienceListener() { };

    /**
     * The stack was created. Gauges read its live state here: {@link ResilientDependency#state()}
     * (which also moves an expired open breaker to half-open) and {@link
     * ResilientDependency#bulkheadInUse()}.
     *
     * @throws IllegalStateException if the listener refuses the stack, for instance a second one
     *     with the same name; the creation then fails
     */
    default void onCreated(ResilientDependency dependency) {
    }

    /**
     * A retry follows a transient failure: its backoff has passed and attempt number {@code attempt}
     * (2 for the first retry) starts now.
     */
    default void onRetry(String dependency, int attempt) {
    }

    /** A retry that was otherwise allowed was refused because the retry budget was spent. */
    default void onRetryBudgetExhausted(String dependency) {
    }

    /**
     * A call was not sent: {@link Reason#BREAKER_OPEN}, {@link Reason#BULKHEAD_FULL} or {@link
     * Reason#DEADLINE_TOO_SHORT}. The caller receives a {@link DependencyUnavailable} with the same
     * reason.
     */
    default void onRejected(String dependency, Reason reason) {
    }

    /** The circuit breaker moved to {@code state}. */
    default void onStateChange(String dependency, CircuitState state) {
    }

    /**
     * A request of {@code priority} was refused before any work: its class was over its in-flight
     * limit, or it was dropped for another reason such as a deadline already passed.
     */
    default void onShed(Priority priority) {
    }

    /**
     * The adaptive admission limit moved to {@code limit}, judged from the last window's average own
     * time against the baseline and its scheduling lag (all in nanoseconds).
     */
    default void onLimitChanged(int limit, long baselineNanos, long averageNanos, long lagNanos) {
    }

    /**
     * A call to {@code dependency} failed only by attempts that the request's deadline had cut
     * short of a fair chance: the time was spent inside the product, so the breaker gives no
     * verdict on the dependency.
     */
    default void onCutShort(String dependency) {
    }
}
