package org.sagas.orchestrator.saga;

/**
 * Why a saga cannot go on without an operator (docs/design.md, "No saga left behind"). Stored as text in {@code
 * saga_instance.incident_cause}, a CHECK list of these names.
 */
public enum IncidentCause {
    /** A participant refused a compensation for good (e.g. a release answered 400). */
    PARTICIPANT_REFUSED,
    /** An asynchronous step's outcome could not be settled (for orders: the payment), resends spent. */
    PAYMENT_UNRESOLVED,
    /** A command of the saga kept failing at its consumer and went to the dead-letter topic. */
    COMMAND_DEAD_LETTERED,
    /** A reply to the saga kept failing and went to the dead-letter topic. */
    POISON_REPLY,
    /** A step kept throwing: its bounded retries are spent. */
    STEP_FAILED,
    /** A compensation has waited on its participant longer than SAGA_COMPENSATION_STALL_MS (still retried). */
    COMPENSATION_STALLED,
    /** A repair the reconciler asked for (a refund, a release) kept failing and was dead-lettered. */
    REPAIR_FAILED
}
