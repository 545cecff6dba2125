package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import java.util.List;
import org.jdbi.v3.core.Handle;

/**
 * A saga: an ordered list of steps over data of type {@code D}, and how its progress reads to a
 * customer. The engine runs any definition; adding one never touches the engine.
 */
public interface SagaDefinition<D> {

    /** Lower-case type name, stored in {@code saga_instance.saga_type}. */
    String type();

    /**
     * This definition's version, stored in {@code saga_instance.definition_version}: an instance
     * runs the version it started on to its end (docs/design.md, "A second version of a saga").
     * A change to the steps or compensations of a type is a new version, registered beside the old.
     */
    default int version() {
        return 1;
    }

    /** The data's class; the engine stores it as JSON. */
    Class<D> dataType();

    List<SagaStep<D>> steps();

    /** The upper-snake label for a situation (for orders: the customer-visible status). */
    String label(Situation<D> situation);

    /**
     * Messages to publish when the saga ends (as {@code ended}), in the same transaction.
     * {@code reason} is why it ended: its cause when it turned back, else {@code completed}.
     */
    default List<OutgoingMessage> onEnd(SagaInstance<D> ended, Reason reason) {
        return List.of();
    }

    /**
     * Messages that tell of {@code transition} (e.g. a status event), written in its transaction after
     * its own messages (commands, {@link #onEnd}): those for the same key share one outbox row.
     */
    default List<OutgoingMessage> events(Transition<D> transition) {
        return List.of();
    }

    /** Effects on the definition's own tables, run inside every transition's transaction. */
    default void onTransition(Handle handle, Transition<D> transition) {}

    /** The step at {@code index}. */
    default SagaStep<D> step(int index) {
        return steps().get(index);
    }

    default int indexOf(String stepName) {
        List<SagaStep<D>> steps = steps();
        for (int i = 0; i < steps.size(); i++) {
            if (steps.get(i).name().equals(stepName)) {
                return i;
            }
        }
        throw new SagaException("saga " + type() + " has no step " + stepName);
    }
}
