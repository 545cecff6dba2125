package org.sagas.sandbox;

/**
 * The faults the inventory sandbox injects into reserve and release ({@code /stock} and
 * {@code /_faults} always answer). Immutable.
 *
 * @param latencyMs how long to wait before answering, 0 to 120 000 ms
 * @param errorRate the share of requests answered 503 at random, without effect, 0 to 1
 * @param down whether every reserve and release is answered 503 at once
 * @throws IllegalArgumentException when a value is out of range
 */
public record InventoryFaults(long latencyMs, double errorRate, boolean down) {
    /** No fault: the service answers at once and never fails. */
    public static final InventoryFaults NONE = new InventoryFaults(0, 0.0, false);
    static final long MAX_LATENCY_MS = 120_000;

    public InventoryFaults {
        if (latencyMs < 0 || latencyMs > MAX_LATENCY_MS) {
            throw new IllegalArgumentException("latencyMs must be between 0 and " + MAX_LATENCY_MS);
        }
        if (!(errorRate >= 0.0 && errorRate <= 1.0)) {
            throw new IllegalArgumentException("errorRate must be between 0 and 1");
        }
    }
}
