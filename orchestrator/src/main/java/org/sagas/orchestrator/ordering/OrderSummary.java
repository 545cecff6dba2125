package org.sagas.orchestrator.ordering;

import java.time.Instant;
import java.util.UUID;

/**
 * One order and where its saga stands, as the operator's list shows it.
 *
 * @param sagaStatus the engine's status (RUNNING, AWAITING_REPLY, PARKED, ...)
 * @param version the saga's optimistic-lock version
 * @param definitionVersion the saga definition's version the order runs (docs/design.md, "A second
 *     version of a saga")
 */
public record OrderSummary(UUID orderId, OrderStatus status, String customerId, String currency, long totalCents,
        Instant createdAt, Instant updatedAt, String sagaStatus, String step, int version, int definitionVersion, String parkedOn,
        String parkReason, Instant nextAttemptAt, Instant stepDeadlineAt, String incidentCause, String incidentDetail,
        Instant incidentAt) {

    /** Where the next page starts when this is the last row of one. */
    public OrderCursor cursor() {
        return new OrderCursor(createdAt, orderId);
    }
}
