package org.sagas.orchestrator.saga;

/**
 * What a step (or its compensation) came back with. Keeps apart a participant that said no
 * ({@link Refused}, a business answer) from one that could not be reached ({@link Unavailable}).
 */
public sealed interface StepResult<D> {

    /** The step did its work; {@code data} is the saga data from now on. */
    record Done<D>(D data) implements StepResult<D> {}

    /** The participant answered no (out of stock, declined): the saga takes its business path. */
    record Refused<D>(String reason) implements StepResult<D> {}

    /** The participant could not be reached; the saga parks on {@code dependency} and retries later. */
    record Unavailable<D>(String dependency, String reason) implements StepResult<D> {}

    static <D> StepResult<D> done(D data) {
        return new Done<>(data);
    }

    static <D> StepResult<D> refused(String reason) {
        return new Refused<>(reason);
    }

    static <D> StepResult<D> unavailable(String dependency, String reason) {
        return new Unavailable<>(dependency, reason);
    }
}
