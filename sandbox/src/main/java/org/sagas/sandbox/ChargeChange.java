package org.sagas.sandbox;


/**
 * A charge as the payment feed lists it: the ledger row, when it last changed and the feed
 * {@code cursor} just after this change.
 */
record ChargeChange(String idempotencyKey, String orderId, long amountCents, String currency, ChargeStatus status,
        String updatedAt, String cursor) {}
