package org.sagas.orchestrator.admin;

import java.time.Instant;
import java.util.UUID;
import org.sagas.orchestrator.saga.SagaInstance;

/**
 * A saga as an action's answer shows it: enough to see what happened and to decide again.
 *
 * @param status the order's status (the saga's label)
 * @param sagaStatus the engine's status
 * @param version the optimistic-lock version: it changes with every move
 */
public record SagaState(UUID orderId, String status, String sagaStatus, String step, int version, String parkedOn,
        String parkReason, Instant nextAttemptAt, Instant stepDeadlineAt, Instant expiresAt) {

    static SagaState of(SagaInstance<?> s) {
        return new SagaState(s.id(), s.label(), s.status().name(), s.step(), s.version(), s.parkedOn(), s.parkReason(),
                s.nextAttemptAt(), s.stepDeadlineAt(), s.expiresAt());
    }
}
