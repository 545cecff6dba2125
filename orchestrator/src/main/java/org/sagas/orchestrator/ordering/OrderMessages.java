package org.sagas.orchestrator.ordering;

import java.util.UUID;

/** The messages of the orders saga: commands imperative, events past tense. */
public final class OrderMessages {
    public static final String CHARGE_PAYMENT = "ChargePayment";
    public static final String REFUND_PAYMENT = "RefundPayment";
    public static final String PAYMENT_CAPTURED = "PaymentCaptured";
    public static final String PAYMENT_DECLINED = "PaymentDeclined";
    /** The older end-of-order events: no longer written (ADR 0019), still read from topics that keep them. */
    public static final String ORDER_CONFIRMED = "OrderConfirmed";
    public static final String ORDER_CANCELLED = "OrderCancelled";
    public static final String ORDER_REJECTED = "OrderRejected";
    /** One per change of an order's customer-visible status, on {@code orders.events} (docs/events.md). */
    public static final String ORDER_STATUS_CHANGED = "OrderStatusChanged";
    public static final String CUSTOMER_NOTIFIED = "CustomerNotice";

    private OrderMessages() {}

    /** Charge the customer; the provider sees {@code idempotencyKey} on every attempt. */
    public record ChargePayment(UUID orderId, String customerId, long amountCents, String currency,
            String idempotencyKey) {}

    /**
     * Refund whatever was captured under {@code chargeKey}, under {@code refundKey}: the undo of a
     * charge when an operator cancels an order whose payment is under way or captured. It follows
     * the charge command on the same topic and key, so the worker sees the charge first.
     */
    public record RefundPayment(UUID orderId, String chargeKey, String refundKey) {}

    public record PaymentCaptured(UUID orderId, String idempotencyKey) {}

    /**
     * The charge did not happen. {@code code} is {@code payment_refused} when the provider refused
     * the request for good, else {@code payment_declined}; {@code reason} is the provider's word.
     */
    public record PaymentDeclined(UUID orderId, String idempotencyKey, String reason, String code) {}

    /**
     * The order's status changed to {@code status} (the first event: the status it was created
     * with). {@code sagaVersion} grows with every transition of the order, so a reader can put
     * events that arrive twice or late in their place: the highest version is the current status.
     */
    public record OrderStatusChanged(UUID orderId, String customerId, String status, String reason,
            long totalCents, String currency, int sagaVersion, java.time.Instant at) {}

    /** What the customer is told, on the {@code notifications} topic. */
    public record CustomerNotice(UUID orderId, String customerId, String kind, String message) {}
}
