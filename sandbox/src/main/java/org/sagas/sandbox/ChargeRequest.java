package org.sagas.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.regex.Pattern;

/** The body of {@code POST /charges}: {@code {"orderId","amountCents","currency"}}. */
record ChargeRequest(String orderId, long amountCents, String currency) {
    private static final Pattern CURRENCY = Pattern.compile("[A-Z]{3}");

    static ChargeRequest parse(JsonNode body) {
        String orderId = ReserveRequest.orderId(body);
        long amountCents = Json.integer(Json.required(body, "amountCents", "amountCents"), "amountCents", 0,
                Long.MAX_VALUE);
        String currency = Json.text(Json.required(body, "currency", "currency"), "currency", 3);
        if (!CURRENCY.matcher(currency).matches()) {
            throw Problem.invalid("currency", "must be three upper-case letters (ISO 4217)");
        }
        return new ChargeRequest(orderId, amountCents, currency);
    }
}
