package org.sagas.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import org.sagas.orchestrator.ordering.Limits;

/** The body of {@code POST /charges}: {@code {"orderId","amountCents","currency"}}. */
record ChargeRequest(String orderId, long amountCents, String currency) {
    static ChargeRequest parse(JsonNode body) {
        String orderId = ReserveRequest.orderId(body);
        long amountCents = Json.integer(Json.required(body, "amountCents", "amountCents"), "amountCents", 0,
                Long.MAX_VALUE);
        String currency = Json.text(Json.required(body, "currency", "currency"), "currency", 3);
        if (!Limits.isCurrency(currency)) {
            throw Problem.invalid("currency", "must be three upper-case letters (ISO 4217)");
        }
        return new ChargeRequest(orderId, amountCents, currency);
    }
}
