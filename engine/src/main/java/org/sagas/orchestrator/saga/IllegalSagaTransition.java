package org.sagas.orchestrator.saga;

/** A move between statuses the engine does not allow: a bug, never an operational condition. */
public final class IllegalSagaTransition extends SagaException {
    private static final long serialVersionUID = 1L;

    public IllegalSagaTransition(String message) {
        super("illegal saga transition: " + message);
    }
}
