package org.sagas.orchestrator.resilience;

import java.time.Duration;

/**
 * One attempt at a remote call, as made by {@link ResilientDependency#call}.
 *
 * <p>The function receives the time this attempt may take ({@code min(attemptTimeout, time left
 * before the deadline)}) so it can set its client's own timeout and propagate the deadline. It
 * throws {@link TransientFailure} when the dependency failed; anything else is an answer.
 *
 * @param <T> the answer's type
 */
@FunctionalInterface
public interface AttemptFunction<T> {

    /**
     * Makes one attempt.
     *
     * @param attemptTimeout how long this attempt may take; the stack also enforces it
     * @return the dependency's answer
     * @throws TransientFailure if the dependency failed and a retry might succeed
     * @throws Exception any other exception is passed through as the dependency's answer
     */
    T apply(Duration attemptTimeout) throws Exception;
}
