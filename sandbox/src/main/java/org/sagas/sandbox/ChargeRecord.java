package org.sagas.sandbox;

/**
 * One row of the payment sandbox's ledger, as it answers it:
 * {@code {"idempotencyKey","orderId","amountCents","currency","status"}}.
 */
record ChargeRecord(String idempotencyKey, String orderId, long amountCents, String currency, ChargeStatus status) {}
