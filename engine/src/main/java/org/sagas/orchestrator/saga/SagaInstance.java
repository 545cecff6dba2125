package org.sagas.orchestrator.saga;

import java.time.Instant;
import java.util.UUID;

/**
 * A saga instance as stored: immutable; every change makes a new one with the next version.
 *
 * @param definition the type and the version of the definition it runs, from its start to its end
 * @param stepIndex the current step's position in the definition
 * @param parkCount how many times the forward path was held up: parked on a dependency, or a
 *     step tried again after it threw (a compensation waiting does not count)
 * @param nextAttemptAt when the engine should (re)run the current synchronous step, or null
 * @param stepDeadlineAt when an asynchronous step times out, or null
 * @param expiresAt when a parked saga gives up, or null
 * @param completedSteps how many forward steps were done before the saga turned back (or ended)
 * @param stepRetries how many times the current step was tried again after it threw, or its
 *     command sent again; back to 0 on every new step
 * @param cause why the saga left its forward path (a refusal, expiry), or null while it goes forward
 * @param incident set while the saga cannot go on without an operator, else null
 */
public record SagaInstance<D>(UUID id, SagaVersion definition, SagaStatus status, int stepIndex, String step, String label,
        int version, D data, String parkedOn, String parkReason, int parkCount, Instant nextAttemptAt,
        Instant stepDeadlineAt, Instant expiresAt, Instant createdAt, int completedSteps, int stepRetries,
        Reason cause, Incident incident) {

    /** A new step (or status): one version later, nothing parked, due or deadlined, no incident. */
    SagaInstance<D> with(SagaStatus newStatus, int newIndex, String newStep, String newLabel, D newData) {
        return new SagaInstance<>(id, definition, newStatus, newIndex, newStep, newLabel, version + 1, newData, null, null,
                parkCount, null, null, null, createdAt, completedSteps, 0, cause, null);
    }

    /**
     * Parked on {@code dependency}; {@code countIt} adds one to {@link #parkCount()} when the saga
     * was not parked before. The first expiry set stays.
     */
    SagaInstance<D> parked(String dependency, String reason, Instant retryAt, Instant expiry, boolean countIt) {
        boolean newlyParked = parkedOn == null && countIt;
        return new SagaInstance<>(id, definition, status, stepIndex, step, label, version, data, dependency, reason,
                newlyParked ? parkCount + 1 : parkCount, retryAt, stepDeadlineAt, expiresAt == null ? expiry : expiresAt,
                createdAt, completedSteps, stepRetries, cause, incident);
    }

    SagaInstance<D> withStatus(SagaStatus newStatus) {
        return new SagaInstance<>(id, definition, newStatus, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt, completedSteps, stepRetries, cause,
                incident);
    }

    SagaInstance<D> withLabel(String newLabel) {
        return new SagaInstance<>(id, definition, status, stepIndex, step, newLabel, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt, completedSteps, stepRetries, cause,
                incident);
    }

    SagaInstance<D> due(Instant at) {
        return new SagaInstance<>(id, definition, status, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, at, stepDeadlineAt, expiresAt, createdAt, completedSteps, stepRetries, cause, incident);
    }

    SagaInstance<D> stepDeadline(Instant at) {
        return new SagaInstance<>(id, definition, status, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, at, expiresAt, createdAt, completedSteps, stepRetries, cause, incident);
    }

    SagaInstance<D> withCompletedSteps(int n) {
        return new SagaInstance<>(id, definition, status, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt, n, stepRetries, cause, incident);
    }

    SagaInstance<D> withCause(Reason newCause) {
        return new SagaInstance<>(id, definition, status, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt, completedSteps, stepRetries, newCause,
                incident);
    }

    /** One more retry of the current step; the first one of a forward step counts as being held up. */
    SagaInstance<D> retried(boolean countIt) {
        int held = countIt && stepRetries == 0 ? parkCount + 1 : parkCount;
        return new SagaInstance<>(id, definition, status, stepIndex, step, label, version, data, parkedOn, parkReason,
                held, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt, completedSteps, stepRetries + 1, cause,
                incident);
    }

    SagaInstance<D> withIncident(Incident newIncident) {
        return new SagaInstance<>(id, definition, status, stepIndex, step, label, version, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt, completedSteps, stepRetries, cause,
                newIncident);
    }

    /**
     * The same instance on definition {@code to}, at step {@code newIndex} ({@code newStep}), one
     * version later; status, data, parking and causes unchanged.
     */
    SagaInstance<D> migrated(SagaVersion to, int newIndex, String newStep) {
        return new SagaInstance<>(id, to, status, newIndex, newStep, label, version + 1, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt, completedSteps, stepRetries, cause,
                incident);
    }

    /** The same instance, one version later. */
    SagaInstance<D> bumped() {
        return new SagaInstance<>(id, definition, status, stepIndex, step, label, version + 1, data, parkedOn, parkReason,
                parkCount, nextAttemptAt, stepDeadlineAt, expiresAt, createdAt, completedSteps, stepRetries, cause,
                incident);
    }

    /** The same instance, one version later: the claim a worker makes before running a step. */
    public SagaInstance<D> claimed(Instant leaseUntil) {
        return bumped().due(leaseUntil);
    }

    /** The saga type, {@code definition().type()}. */
    public String type() {
        return definition.type();
    }

    public boolean isTerminal() {
        return status.isTerminal();
    }
}
