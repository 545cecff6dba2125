package org.sagas.orchestrator.saga;

import java.util.EnumSet;
import java.util.Set;

/**
 * Where a saga instance stands in the engine. Stored as text with a CHECK constraint.
 * Moves go through {@link #checkMoveTo}; an illegal move is a bug and throws.
 */
public enum SagaStatus {
    /** A synchronous step is due or being run. */
    RUNNING,
    /** An asynchronous step's command is out; waiting for its reply. */
    AWAITING_REPLY,
    /** A forward step waits for a dependency to come back. */
    PARKED,
    /** Undoing completed steps, last first; may wait for a dependency. */
    COMPENSATING,
    /** Every step done. Terminal. */
    COMPLETED,
    /** A step said no; everything done before it was undone. Terminal. */
    COMPENSATED,
    /**
     * No step was done: the first one said no, or gave up and was undone itself. Terminal.
     */
    FAILED;

    private static final Set<SagaStatus> TERMINAL = EnumSet.of(COMPLETED, COMPENSATED, FAILED);

    public boolean isTerminal() {
        return TERMINAL.contains(this);
    }

    /** Whether the engine may move an instance from this status to {@code next}. */
    public boolean canMoveTo(SagaStatus next) {
        switch (this) {
            case RUNNING:
                return true;
            case AWAITING_REPLY:
                return next == AWAITING_REPLY || next == RUNNING || next == COMPLETED || next == COMPENSATING
                        || next == COMPENSATED || next == FAILED;
            case PARKED:
                return next == RUNNING || next == PARKED || next == AWAITING_REPLY || next == COMPLETED
                        || next == COMPENSATING || next == COMPENSATED || next == FAILED;
            case COMPENSATING:
                // FAILED: what was undone was only the step that gave up itself.
                return next == COMPENSATING || next == COMPENSATED || next == FAILED;
            default:
                return false;
        }
    }

    /** @throws IllegalSagaTransition when the move is not allowed */
    public void checkMoveTo(SagaStatus next) {
        if (!canMoveTo(next)) {
            throw new IllegalSagaTransition(this + " -> " + next);
        }
    }
}
