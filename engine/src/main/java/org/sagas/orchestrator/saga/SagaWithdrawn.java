package org.sagas.orchestrator.saga;

import java.util.UUID;

/**
 * A submission's saga was withdrawn before anything happened: its first step could not be tried
 * for the product's own want of capacity ({@link StepResult.Unavailable#untried}), so the instance
 * was deleted in the transaction that would have parked it, as if it had never been started. The
 * caller answers that it is overloaded; nothing is stored.
 */
public final class SagaWithdrawn extends SagaException {
    private static final long serialVersionUID = 1L;

    private final transient Reason reason;

    public SagaWithdrawn(UUID sagaId, Reason reason) {
        super("saga " + sagaId + " withdrawn before its first call: " + reason.code());
        this.reason = reason;
    }

    /** Why its first step was not tried. */
    public Reason reason() {
        return reason;
    }
}
