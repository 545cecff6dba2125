package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import java.util.List;

/**
 * A decided move: the instance after it, why, and the messages it publishes. The engine writes
 * all three in one transaction, guarded by the version of the instance before it.
 */
public record Transition<D>(SagaInstance<D> before, SagaInstance<D> after, Reason reason,
        List<OutgoingMessage> messages) {

    /** True when the engine should run the next synchronous step (or compensation) right away. */
    public boolean runsOn() {
        return after.nextAttemptAt() != null && after.parkedOn() == null && after.stepRetries() == 0
                && (after.status() == SagaStatus.RUNNING || after.status() == SagaStatus.COMPENSATING);
    }

    /** True when this move put the saga into an incident (or changed its cause). */
    public boolean raisesIncident() {
        Incident now = after.incident();
        Incident was = before.incident();
        return now != null && (was == null || was.cause() != now.cause());
    }
}
