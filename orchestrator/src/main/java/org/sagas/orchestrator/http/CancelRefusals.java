package org.sagas.orchestrator.http;

import org.sagas.orchestrator.ordering.CancelOutcome;

/**
 * The problem each refused cancel is answered with, the same on the API and on {@code orders.events}
 * (docs/design.md, "Cancelling an order"), chosen by the outcome's type. Stateless.
 */
final class CancelRefusals {
    /**
     * @param namesOrder whether the answer carries the order's id ({@code orderId})
     * @param retryAfterSeconds when to ask again; 0 when asking again changes nothing
     */
    record Problem(int status, String type, String title, String detail, boolean namesOrder,
            int retryAfterSeconds) {}

    private CancelRefusals() {}

    /** @throws IllegalArgumentException for an accepted outcome, which is no refusal */
    static Problem of(CancelOutcome outcome) {
        if (outcome instanceof CancelOutcome.Confirmed) {
            return new Problem(409, "order-confirmed", "Order already confirmed",
                    "the order is CONFIRMED: it can no longer be cancelled", true, 0);
        } else if (outcome instanceof CancelOutcome.NotFound) {
            return new Problem(404, "not-found", "Order not found", "no order " + outcome.orderId(), false, 0);
        } else if (outcome instanceof CancelOutcome.KeyReused) {
            return new Problem(422, "idempotency-key", "Idempotency-Key reused",
                    "Idempotency-Key was used for another request", false, 0);
        } else if (outcome instanceof CancelOutcome.Contended contended) {
            return new Problem(503, "order-busy", "Order busy", "the order kept moving while it was being"
                    + " cancelled (it is " + contended.status() + "); nothing was changed, ask again", true, 1);
        }
        throw new IllegalArgumentException("an accepted cancel is no refusal: " + outcome);
    }
}
