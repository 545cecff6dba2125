package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiFunction;

/**
 * One step of a saga: an action and its compensation, either synchronous (called in-process
 * through a port) or asynchronous (a command through the outbox, resumed by a reply).
 */
public sealed interface SagaStep<D> {

    /** Upper-snake name, stored in {@code saga_instance.step}. */
    String name();

    /** A step run in-process; may park the saga when its dependency is unavailable. */
    @FunctionalInterface
    interface Action<D> {
        StepResult<D> run(D data, StepContext context);
    }

    /**
     * A synchronous step.
     *
     * @param compensation undoes the action; null when there is nothing to undo
     */
    record Sync<D>(String name, Action<D> action, Action<D> compensation) implements SagaStep<D> {
        public Optional<Action<D>> compensationIfAny() {
            return Optional.ofNullable(compensation);
        }
    }

    /**
     * An asynchronous step.
     *
     * @param command the command to publish when the step starts
     * @param onReply maps a reply to the step's result; returns null for a message that is not a reply to this step
     * @param timeout how long to wait for the reply before the saga is marked as timed out
     * @param compensation a command that undoes the step (fire and forget); null when nothing to undo
     */
    record Async<D>(String name, BiFunction<UUID, D, OutgoingMessage> command,
            BiFunction<D, IncomingMessage, StepResult<D>> onReply, Duration timeout,
            BiFunction<UUID, D, OutgoingMessage> compensation) implements SagaStep<D> {}
}
