package org.sagas.sandbox;

/** A charge's state in the provider's ledger. Stored as text, with a CHECK constraint. */
enum ChargeStatus { CAPTURED, DECLINED, REFUNDED }
