package org.sagas.orchestrator.saga;

import java.util.UUID;

/** The instance changed since it was read (optimistic lock): someone else moved it first. */
public final class ConcurrentSagaUpdate extends SagaException {
    private static final long serialVersionUID = 1L;

    public ConcurrentSagaUpdate(UUID sagaId, int expectedVersion) {
        super("saga " + sagaId + " is no longer at version " + expectedVersion);
    }
}
