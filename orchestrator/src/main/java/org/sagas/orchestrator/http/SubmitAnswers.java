package org.sagas.orchestrator.http;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ordering.OrderReason;
import org.sagas.orchestrator.ordering.SubmitOutcome;

/**
 * The answer to {@code POST /orders} (the http openapi.json) for each {@link SubmitOutcome}: its
 * status, its problem type (RFC 9457, a stable slug under {@code /problems/}), and its body. The one
 * place a submission's outcome becomes HTTP; {@link OrderCommands} answers {@code orders.commands}
 * with the same status and type. Stateless.
 */
final class SubmitAnswers {
    private SubmitAnswers() {}

    /**
     * An answer. {@code type} is the problem's slug (e.g. {@code out-of-stock}), null when accepted;
     * {@code detail} the problem's detail, null when accepted.
     */
    record Answer(int status, String type, String detail, String body) {
        boolean accepted() {
            return type == null;
        }
    }

    static Answer of(SubmitOutcome outcome) {
        if (outcome instanceof SubmitOutcome.Accepted a) {
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("orderId", a.orderId());
            body.put("status", a.status().name());
            return new Answer(202, null, null, Json.write(body));
        }
        if (outcome instanceof SubmitOutcome.Refused r) {
            return refused(r.orderId(), r.reason());
        }
        if (outcome instanceof SubmitOutcome.Withdrawn w) {
            return problem(503, "overloaded", "Too many requests in flight",
                    "the product could not send this order's reservation in time (" + w.reasonCode()
                            + "); nothing was stored, retry with the same Idempotency-Key", null, null);
        }
        if (outcome instanceof SubmitOutcome.KeyConflict k) {
            return k.kind() == SubmitOutcome.KeyConflict.Kind.IN_PROGRESS
                    ? problem(409, "idempotency-key", "Request in progress",
                            "a request with this Idempotency-Key is still in progress; retry later", null, null)
                    : problem(422, "idempotency-key", "Idempotency-Key reused",
                            "Idempotency-Key was used with a different request body", null, null);
        }
        return stored((SubmitOutcome.Stored) outcome);
    }

    /** Turned back at submission: the answer says why, by its code. */
    private static Answer refused(UUID orderId, OrderReason reason) {
        switch (reason) {
            case INVENTORY_UNAVAILABLE:
                return problem(503, "inventory-unavailable", "Inventory unavailable",
                        "inventory could not be reached and degraded mode is off; the order is REJECTED",
                        reason, orderId);
            case OUT_OF_STOCK:
                return problem(422, "out-of-stock", "Out of stock",
                        "not enough stock for this order; it is stored as REJECTED", reason, orderId);
            default:
                return problem(422, "order-refused", "Order refused",
                        "the order cannot be served as it is; it is stored as REJECTED and nothing was charged",
                        reason, orderId);
        }
    }

    /** A problem+json answer with a stable {@code code}, naming the order when there is one. */
    private static Answer problem(int status, String type, String title, String detail, OrderReason reason,
            UUID orderId) {
        Map<String, Object> extra = new LinkedHashMap<>();
        if (reason != null) {
            extra.put("code", reason.code());
        }
        if (orderId != null) {
            extra.put("orderId", orderId);
        }
        return new Answer(status, type, detail, Problems.body(status, type, title, detail, extra));
    }

    /** An answer stored before V11, as this edge wrote it then: its problem's type read back from it. */
    private static Answer stored(SubmitOutcome.Stored stored) {
        if (stored.httpStatus() < 400) {
            return new Answer(stored.httpStatus(), null, null, stored.body());
        }
        var problem = Json.read(stored.body(), com.fasterxml.jackson.databind.JsonNode.class);
        String type = problem.path("type").asText();
        return new Answer(stored.httpStatus(), type.substring(type.lastIndexOf('/') + 1),
                problem.path("detail").asText(), stored.body());
    }
}
