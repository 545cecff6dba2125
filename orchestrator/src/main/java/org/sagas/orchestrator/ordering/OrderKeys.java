package org.sagas.orchestrator.ordering;

import java.util.UUID;

/**
 * The idempotency keys an order's participant calls carry, derived from the order id so that
 * every retry, resume, reconciliation or operator action sends the same key: one place builds
 * them. The payment worker and the participants treat them as opaque text.
 */
public final class OrderKeys {
    private OrderKeys() {}

    /** The reservation of the order's stock at inventory. */
    public static String reserve(UUID orderId) {
        return orderId + ":reserve";
    }

    /** The release of that reservation. */
    public static String release(UUID orderId) {
        return orderId + ":release";
    }

    /** The fraud screening of the order (the orders saga's version 2). */
    public static String screen(UUID orderId) {
        return orderId + ":screen";
    }

    /** The charge at the payment provider. */
    public static String charge(UUID orderId) {
        return orderId + ":charge";
    }

    /** The refund of that charge. */
    public static String refund(UUID orderId) {
        return charge(orderId) + ":refund";
    }
}
