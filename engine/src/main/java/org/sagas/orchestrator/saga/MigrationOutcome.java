package org.sagas.orchestrator.saga;

import java.util.UUID;

/**
 * What moving one saga to another definition version came to, or would (a dry run). Every branch
 * but {@link NotFound} carries the saga as it stands.
 */
public sealed interface MigrationOutcome {

    /** Moved ({@code now} is the saga after it), or in a dry run: would become {@code now}. */
    record Moved(SagaInstance<?> before, SagaInstance<?> now) implements MigrationOutcome {}

    /** Not moved: it has ended, is on the target already, or its state has no mapping ({@code why}). */
    record Refused(SagaInstance<?> now, String why) implements MigrationOutcome {}

    /** Someone else moved the saga first; nothing was written. */
    record Conflict(SagaInstance<?> now, String why) implements MigrationOutcome {}

    /** No saga has this id (or this process lacks its version). */
    record NotFound(UUID sagaId) implements MigrationOutcome {}
}
