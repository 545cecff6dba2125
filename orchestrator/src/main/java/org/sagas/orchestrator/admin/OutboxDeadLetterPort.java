package org.sagas.orchestrator.admin;

import java.util.List;

/**
 * Outbox rows the broker refused for good, kept by the relay (docs/design.md, "Outbox and messaging"). Each operation
 * is idempotent; {@link #replay} and {@link #discard} answer false when the row is no longer there.
 */
public interface OutboxDeadLetterPort {
    long count();

    /** The first {@code limit}, oldest first; each is written to JSON as it is. */
    List<?> list(int limit);

    /** Puts the row back where it was in the outbox. */
    boolean replay(long id);

    /** Gives up on the row for good. */
    boolean discard(long id);
}
