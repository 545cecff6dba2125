package org.sagas.orchestrator.saga;

import java.util.UUID;

/** What became of an operator's command on one saga. Every branch carries the saga as it stands. */
public sealed interface OperatorOutcome {

    /** The command was written; {@code now} is the saga after it and whatever ran inline after it. */
    record Applied(SagaInstance<?> now) implements OperatorOutcome {}

    /** Not allowed in the saga's state (it has ended); nothing was written. */
    record Refused(SagaInstance<?> now, String why) implements OperatorOutcome {}

    /** Someone else (a runner, a reply, another operator) moved the saga first; nothing was written. */
    record Conflict(SagaInstance<?> now, String why) implements OperatorOutcome {}

    /** No saga has this id. */
    record NotFound(UUID sagaId) implements OperatorOutcome {}
}
