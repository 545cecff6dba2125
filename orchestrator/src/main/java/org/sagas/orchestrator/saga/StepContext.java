package org.sagas.orchestrator.saga;

import java.util.UUID;

/**
 * What a synchronous step gets besides the saga data.
 *
 * @param deadlineEpochMillis the absolute time by which the caller needs an answer
 * @param interactive true while a client waits for the answer (the submit request)
 */
public record StepContext(UUID sagaId, long deadlineEpochMillis, boolean interactive) {}
