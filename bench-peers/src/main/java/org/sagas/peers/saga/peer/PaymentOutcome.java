package org.sagas.peers.saga.peer;

/** What the payment provider answered a charge. */
public enum PaymentOutcome {
    CAPTURED,
    DECLINED
}
