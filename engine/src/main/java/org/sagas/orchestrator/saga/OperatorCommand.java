package org.sagas.orchestrator.saga;

/** What an operator may ask of one saga that has not ended (docs/operations-admin.md). */
public enum OperatorCommand {
    /** Run the waiting step now, or send the awaited command again (same participant key). */
    RETRY,
    /** Undo what was done, last first, and end the saga. */
    CANCEL
}
