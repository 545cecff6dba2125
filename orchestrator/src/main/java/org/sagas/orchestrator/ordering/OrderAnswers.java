package org.sagas.orchestrator.ordering;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ProblemDetail;
import org.sagas.orchestrator.saga.Reason;

/**
 * The answer to {@code POST /orders} (the http openapi.json) for how the submission resolved: the
 * order's status after its first step resolved and, when it turned back, the typed cause. One
 * function, used both for the live answer and for the one stored under the Idempotency-Key, so a
 * replay answers the same whoever resolved the submission. Stateless.
 */
final class OrderAnswers {
    private OrderAnswers() {}

    /** The answer for an order whose submission resolved to {@code status} because of {@code cause}. */
    static SubmitResult of(UUID orderId, OrderStatus status, Reason cause, boolean replayed) {
        switch (status) {
            case PENDING_CONFIRMATION:
            case AWAITING_PAYMENT:
                Map<String, Object> body = new LinkedHashMap<>();
                body.put("orderId", orderId);
                body.put("status", status.name());
                return new SubmitResult(202, orderId, Json.write(body), replayed);
            default:
                return refused(orderId, cause, replayed);
        }
    }

    /** Turned back at submission (REJECTED, or being withdrawn): the answer says why, by its code. */
    private static SubmitResult refused(UUID orderId, Reason cause, boolean replayed) {
        OrderReason reason = OrderReason.of(cause).orElse(OrderReason.ORDER_REFUSED);
        switch (reason) {
            case INVENTORY_UNAVAILABLE:
                return problem(503, "inventory-unavailable", "Inventory unavailable",
                        "inventory could not be reached and degraded mode is off; the order is REJECTED",
                        reason, orderId, replayed);
            case OUT_OF_STOCK:
                return problem(422, "out-of-stock", "Out of stock",
                        "not enough stock for this order; it is stored as REJECTED", reason, orderId, replayed);
            default:
                return problem(422, "order-refused", "Order refused",
                        "the order cannot be served as it is; it is stored as REJECTED and nothing was charged",
                        reason, orderId, replayed);
        }
    }

    /** Withdrawn before any work reached a participant: the product is over what it can serve now (503). */
    static SubmitResult overloaded(String detail) {
        return problem(503, "overloaded", "Too many requests in flight", detail, null, null, false);
    }

    /** A conflict over an Idempotency-Key (409 in progress, 422 reused with another body). */
    static SubmitResult keyConflict(String detail, int status) {
        return problem(status, "idempotency-key", status == 409 ? "Request in progress" : "Idempotency-Key reused",
                detail, null, null, false);
    }

    /** A problem+json answer (RFC 9457) with a stable {@code code}, naming the order when there is one. */
    private static SubmitResult problem(int status, String type, String title, String detail, OrderReason reason,
            UUID orderId, boolean replayed) {
        Map<String, Object> extra = new LinkedHashMap<>();
        if (reason != null) {
            extra.put("code", reason.code());
        }
        if (orderId != null) {
            extra.put("orderId", orderId);
        }
        return new SubmitResult(status, orderId, new ProblemDetail(status, type, title, detail, extra).json(),
                replayed);
    }
}
