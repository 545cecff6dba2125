package org.sagas.peers.saga.peer;

import java.util.List;

/**
 * An order as a peer's {@code POST /orders} accepted it, in the product's body shape
 * ({@code {"customerId","currency","lines":[{"sku","quantity","unitPriceCents"}]}}), with what the
 * peer derived: the order id (from the client's {@code Idempotency-Key}, so a repeated submission
 * names the same saga), the total, the client's deadline for the reservation, how long the saga
 * waits for the payment's answer, and whether the payment worker is to lose that answer (the
 * timeout probe). Plain fields only: DBOS stores it as the workflow's input.
 */
public record OrderRequest(String orderId, String customerId, String currency, List<Line> lines, long amountCents,
        long deadlineEpochMillis, long paymentTimeoutMillis, boolean loseReply) {
    /** The customer whose orders the payment worker charges without answering (the timeout probe). */
    public static final String LOST_REPLY_CUSTOMER = "probe-lost-reply";

    public OrderRequest {
        lines = List.copyOf(lines);
    }

    /** One line of an order. */
    public record Line(String sku, int quantity, long unitPriceCents) {}

    /** The inventory's reservation key, as the product names it. */
    public String reserveKey() {
        return orderId + ":reserve";
    }

    public String releaseKey() {
        return orderId + ":release";
    }

    /** The payment provider's idempotency key, as the product names it. */
    public String chargeKey() {
        return orderId + ":charge";
    }

    public String refundKey() {
        return chargeKey() + ":refund";
    }
}
