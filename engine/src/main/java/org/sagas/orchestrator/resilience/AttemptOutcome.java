package org.sagas.orchestrator.resilience;

import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;

/** How the attempts of one call ended, short of a non-transient exception (which is thrown). */
sealed interface AttemptOutcome<T> {

    /** The dependency answered. */
    record Answered<T>(T value) implements AttemptOutcome<T> {
    }

    /**
     * Every attempt made failed transiently; {@code lastFailure} is the last one.
     * {@code mayHaveTakenEffect} is true when any of them may have acted at the dependency;
     * {@code dependencyAtFault} is false when every failure was a timeout of an attempt the
     * deadline had cut short of a fair chance (the product's own slowness, not the dependency's).
     */
    record Failed<T>(Reason reason, TransientFailure lastFailure, boolean mayHaveTakenEffect,
            boolean dependencyAtFault)
            implements AttemptOutcome<T> {
    }

    /** Too little time was left to make even one attempt. */
    record NotAttempted<T>() implements AttemptOutcome<T> {
    }
}
