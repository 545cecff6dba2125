package org.sagas.orchestrator.saga;

/**
 * What a step (or its compensation) came back with: the participant's outcome as a type
 * (docs/design.md, "Steps and compensations"). Every decision the engine makes switches on it, never on text.
 *
 * <ul>
 *   <li>{@link Done}: the work is done;</li>
 *   <li>{@link Refused}: the participant said no (out of stock, declined, a request it refuses for
 *       good); no retry can change it and nothing took effect;</li>
 *   <li>{@link Unavailable}: the participant could not be reached or failed, certainly without
 *       effect: the saga parks and tries again; {@linkplain Unavailable#untried untried} when the
 *       call was not even sent for the product's own want of capacity, which lets a submission's
 *       first step withdraw its saga instead ({@link SagaEngine#advance(SagaDefinition, SagaInstance,
 *       long, java.util.function.BiConsumer, java.util.function.Consumer)});</li>
 *   <li>{@link Unknown}: the call failed but may have taken effect: the saga parks and tries again
 *       under the same key, which settles it either way;</li>
 *   <li>{@link Abandoned}: the step gives up on an outcome it does not know: the step itself is
 *       undone by its key, then the earlier ones;</li>
 *   <li>{@link Failed}: the step threw (a bug, an unforeseen failure): tried again a bounded
 *       number of times, then an incident. The engine makes these from exceptions.</li>
 * </ul>
 */
public sealed interface StepResult<D> {

    /** The step did its work; {@code data} is the saga data from now on. */
    record Done<D>(D data) implements StepResult<D> {}

    /** The participant answered no: a forward step takes the business path, a compensation is an incident. */
    record Refused<D>(Reason reason) implements StepResult<D> {}

    /**
     * The participant could not be reached, and nothing took effect; the saga parks on {@code
     * dependency}.
     *
     * @param untried the call was not sent because the product itself lacked the capacity (its own
     *     bulkhead full, its deadline spent before the call) while the participant was not known to fail
     */
    record Unavailable<D>(String dependency, Reason reason, boolean untried) implements StepResult<D> {}

    /** The call failed and may have taken effect; the saga parks on {@code dependency} and retries by key. */
    record Unknown<D>(String dependency, Reason reason) implements StepResult<D> {}

    /** The step will not wait for an unknown outcome: it is undone by its key, then the earlier steps. */
    record Abandoned<D>(Reason reason) implements StepResult<D> {}

    /** The step threw; {@code reason.detail()} says what, for operators. */
    record Failed<D>(Reason reason) implements StepResult<D> {}

    static <D> StepResult<D> done(D data) {
        return new Done<>(data);
    }

    static <D> StepResult<D> refused(Reason reason) {
        return new Refused<>(reason);
    }

    static <D> StepResult<D> unavailable(String dependency, Reason reason) {
        return new Unavailable<>(dependency, reason, false);
    }

    /** Not sent for the product's own want of capacity ({@link Unavailable#untried}). */
    static <D> StepResult<D> untried(String dependency, Reason reason) {
        return new Unavailable<>(dependency, reason, true);
    }

    static <D> StepResult<D> unknown(String dependency, Reason reason) {
        return new Unknown<>(dependency, reason);
    }

    static <D> StepResult<D> abandoned(Reason reason) {
        return new Abandoned<>(reason);
    }

    static <D> StepResult<D> failed(Reason reason) {
        return new Failed<>(reason);
    }
}
