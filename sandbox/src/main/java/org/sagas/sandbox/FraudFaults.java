package org.sagas.sandbox;

/**
 * The faults the fraud sandbox injects into screenings ({@code /_faults} always answers), the
 * same switch the inventory sandbox has ({@link InventoryFaults}). Immutable.
 *
 * @param latencyMs how long to wait before answering, 0 to 120 000 ms
 * @param errorRate the share of screenings answered 503 at random, 0 to 1
 * @param down whether every screening is answered 503 at once
 * @throws IllegalArgumentException when a value is out of range
 */
public record FraudFaults(long latencyMs, double errorRate, boolean down) {
    /** No fault: the service answers at once and never fails. */
    public static final FraudFaults NONE = new FraudFaults(0, 0.0, false);

    public FraudFaults {
        if (latencyMs < 0 || latencyMs > InventoryFaults.MAX_LATENCY_MS) {
            throw new IllegalArgumentException("latencyMs must be between 0 and " + InventoryFaults.MAX_LATENCY_MS);
        }
        if (!(errorRate >= 0.0 && errorRate <= 1.0)) {
            throw new IllegalArgumentException("errorRate must be between 0 and 1");
        }
    }
}
