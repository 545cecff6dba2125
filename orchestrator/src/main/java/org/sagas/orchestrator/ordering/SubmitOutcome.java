package org.sagas.orchestrator.ordering;

import java.util.UUID;

/**
 * How a submission resolved, as a type: the public edge ({@code http}) alone turns it into a status
 * and a body, for {@code POST /orders} and for {@code orders.commands} alike. A replay under the same
 * Idempotency-Key resolves to the same outcome, derived from what the order's saga stored
 * (docs/decisions/0019).
 */
public sealed interface SubmitOutcome {

    /** The order, where the outcome names one. */
    UUID orderId();

    /** Accepted: the order is {@link OrderStatus#AWAITING_PAYMENT} or {@link OrderStatus#PENDING_CONFIRMATION}. */
    record Accepted(UUID orderId, OrderStatus status) implements SubmitOutcome {}

    /** Turned back at submission, for {@code reason}; the order is stored as {@link OrderStatus#REJECTED}. */
    record Refused(UUID orderId, OrderReason reason) implements SubmitOutcome {}

    /**
     * Withdrawn before its reservation was sent, for the product's own want of capacity
     * ({@code reasonCode}, the saga's): nothing was stored, a retry with the same key is a new try.
     */
    record Withdrawn(String reasonCode) implements SubmitOutcome {
        @Override
        public UUID orderId() {
            return null;
        }
    }

    /** The Idempotency-Key cannot be answered for this request. */
    record KeyConflict(Kind kind) implements SubmitOutcome {
        public enum Kind {
            /** Its first request is still running (or the key was claimed and is not readable yet). */
            IN_PROGRESS,
            /** It was used with another request body. */
            REUSED
        }

        @Override
        public UUID orderId() {
            return null;
        }
    }

    /**
     * An answer stored with its key by a version before answers were derived from the order
     * (before V11), replayed as it was stored: its status and body were written by the edge then.
     */
    record Stored(UUID orderId, int httpStatus, String body) implements SubmitOutcome {}
}
