package org.sagas.orchestrator.ordering;

import java.util.UUID;

/**
 * A submission's outcome and whether it is a replay.
 *
 * @param replayed true when this answers an earlier request with the same Idempotency-Key
 */
public record SubmitResult(SubmitOutcome outcome, boolean replayed) {

    /** The order the outcome names, or null. */
    public UUID orderId() {
        return outcome.orderId();
    }

    /** True when the order was accepted (not a stored answer from before V11: see {@link SubmitOutcome.Stored}). */
    public boolean accepted() {
        return outcome instanceof SubmitOutcome.Accepted;
    }
}
