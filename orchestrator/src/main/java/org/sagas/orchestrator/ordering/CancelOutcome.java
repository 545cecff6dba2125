package org.sagas.orchestrator.ordering;

import java.util.UUID;

/**
 * What became of a customer's cancel of one order (docs/design.md, "Cancelling an order"). The edge
 * answers by the type alone: each branch says which state the order is in after the cancel, whoever
 * won a race with the saga's own progress. Refusals ({@link Confirmed}, {@link NotFound},
 * {@link KeyReused}, {@link Contended}) changed nothing and stored nothing under the key.
 */
public sealed interface CancelOutcome {

    /** The order being answered about. */
    UUID orderId();

    /**
     * The order is being undone (its stock released, a charge that lands refunded): {@code status} is
     * {@link OrderStatus#COMPENSATING}. {@code replayed}: answered from the cancel's Idempotency-Key.
     */
    record Undoing(UUID orderId, OrderStatus status, boolean replayed) implements CancelOutcome {}

    /**
     * The order has ended without being confirmed: {@code status} is {@link OrderStatus#CANCELLED} (this
     * cancel, or an earlier end) or {@link OrderStatus#REJECTED}. Nothing is held or kept charged.
     */
    record Ended(UUID orderId, OrderStatus status, boolean replayed) implements CancelOutcome {}

    /** The order is {@link OrderStatus#CONFIRMED}: too late to cancel; nothing was written. */
    record Confirmed(UUID orderId) implements CancelOutcome {}

    /** No such order for this caller (unknown, or another customer's): nothing was written. */
    record NotFound(UUID orderId) implements CancelOutcome {}

    /** The Idempotency-Key was used before for another request (an order, another cancel). */
    record KeyReused(UUID orderId) implements CancelOutcome {}

    /**
     * The saga kept moving under the cancel (it lost the version check every time it tried);
     * nothing was written: the caller asks again. {@code status} is the order's status when it gave up.
     */
    record Contended(UUID orderId, OrderStatus status) implements CancelOutcome {}

    /** The accepted answer for an order now in {@code status}: ended or still being undone. */
    static CancelOutcome accepted(UUID orderId, OrderStatus status, boolean replayed) {
        return status.isTerminal() ? new Ended(orderId, status, replayed) : new Undoing(orderId, status, replayed);
    }
}
