package org.sagas.orchestrator.saga;

import java.time.Instant;
import java.util.UUID;

/**
 * A saga instance as stored: immutable; every change makes a new one with the next version.
 *
 * @param stepIndex the current step's position in the definition
 * @param nextAttemptAt when the engine should (re)run the current synchronous step, or null
 * @param stepDeadlineAt when an asynchronous step times out, or null
 * @param expiresAt when a parked saga gives up, or null
 */
public record SagaInstance<D>(UUID id, String type, SagaStatus status, int stepIndex, String step, String label,
        int version, D data, String parkedOn, String parkReason, int parkCount, Instant nextAttemptAt,
        Instant stepDeadlineAt, Instant expiresAt, Instant createdAt) {

    SagaInstance<D> with(SagaStatus newStatus, int newIndex, String newStep, String newLabel, D newData) {
        return new SagaInstance<>(id, type, newStatus, newIndex, newStep, newLabel, version + 1, newData, null, null,
                parkCount, null, null, null, createdAt);
    }

    SagaInstance<D> parked(String dependency, String reason, Instant retryAt, Instant expiry) {
        boolean newlyParked = parkedOn == null;
        return new SagaInstance<>(id, type, status, stepIndex, step, label, version, data, dependency, reason,
                newlyParked ? parkCount + 1 : parkCount, retryAt, stepDeadlineAt, expiresAt == null ? expiry : expiresAt,
                createdAt);
    }

    SagaInstance<D> withStatus(SagaStatus newStatus) {
        return new SagaInstance<>(id, type, newStatus, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt);
    }

    SagaInstance<D> withLabel(String newLabel) {
        return new SagaInstance<>(id, type, status, stepIndex, step, newLabel, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt);
    }

    SagaInstance<D> due(Instant at) {
        return new SagaInstance<>(id, type, status, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, at, stepDeadlineAt, expiresAt, createdAt);
    }

    SagaInstance<D> stepDeadline(Instant at) {
        return new SagaInstance<>(id, type, status, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, at, expiresAt, createdAt);
    }

    /** The same instance, one version later: the claim a worker makes before running a step. */
    public SagaInstance<D> claimed(Instant leaseUntil) {
        return new SagaInstance<>(id, type, status, stepIndex, step, label, version + 1, data, parkedOn, parkReason,
                parkCount, leaseUntil, stepDeadlineAt, expiresAt, createdAt);
    }

    public boolean isTerminal() {
        return status.isTerminal();
    }
}
