package org.sagas.sandbox;

/**
 * The faults the payment sandbox injects into charge, refund and look-up ({@code /_faults} and
 * {@code GET /charges?orderId} always answer). Immutable.
 *
 * @param latencyMs how long to wait before doing the work and answering, 0 to 120 000 ms
 * @param declineRate the share of new charges declined at random (recorded, stable on replay), 0 to 1
 * @param down whether every charge, refund and look-up is answered 503 at once
 * @param timeoutAfterCharge whether a new charge is recorded and its answer then held back (~30 s,
 *     then 504): the provider charged but the answer was lost. A replay or look-up answers it.
 * @throws IllegalArgumentException when a value is out of range
 */
public record PaymentFaults(long latencyMs, double declineRate, boolean down, boolean timeoutAfterCharge) {
    /** No fault: the provider answers at once and captures every charge. */
    public static final PaymentFaults NONE = new PaymentFaults(0, 0.0, false, false);

    public PaymentFaults {
        if (latencyMs < 0 || latencyMs > InventoryFaults.MAX_LATENCY_MS) {
            throw new IllegalArgumentException("latencyMs must be between 0 and " + InventoryFaults.MAX_LATENCY_MS);
        }
        if (!(declineRate >= 0.0 && declineRate <= 1.0)) {
            throw new IllegalArgumentException("declineRate must be between 0 and 1");
        }
    }
}
