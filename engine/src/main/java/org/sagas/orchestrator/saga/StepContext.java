package org.sagas.orchestrator.saga;

import java.util.UUID;

/**
 * What a synchronous step gets besides the saga data.
 *
 * @param deadlineEpochMillis the absolute time by which the caller needs an answer
 */
public record StepContext(UUID sagaId, long deadlineEpochMillis) {}
