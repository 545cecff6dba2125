package org.sagas.orchestrator.ordering;

import java.util.UUID;

/**
 * The answer to a submission, as stored for idempotent replay.
 *
 * @param body the JSON body sent (and replayed)
 * @param replayed true when this is a stored answer to an earlier request with the same key
 */
public record SubmitResult(int httpStatus, UUID orderId, String body, boolean replayed) {}
