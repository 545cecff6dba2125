package org.sagas.app.warmup;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.sagas.adapters.http.HttpInventoryClient;
import org.sagas.orchestrator.ordering.InventoryPort;
import org.sagas.orchestrator.ordering.OrderLine;

/**
 * The inventory as a warm-up order sees it: each call goes over the real client's connection to the
 * inventory, as a look-up that changes nothing, and answers as a healthy inventory would
 * (reserved, released), so the dry run goes down the order's normal path. A failed look-up is
 * counted, not thrown: a warm-up must not park orders, even ones that are rolled back; after
 * {@value #GIVE_UP_AFTER} failures it stops calling an inventory that is down or slow, so the
 * warm-up does not wait on it. Thread-safe.
 */
final class ProbingInventory implements InventoryPort {
    static final int GIVE_UP_AFTER = 3;
    /** A healthy inventory answers a look-up within this, even on a loaded machine. */
    static final Duration PROBE_TIMEOUT = Duration.ofSeconds(1);
    private final HttpInventoryClient client;
    private final AtomicInteger failures = new AtomicInteger();
    private volatile String lastFailure;

    ProbingInventory(HttpInventoryClient client) {
        this.client = client;
    }

    @Override
    public Reservation reserve(String idempotencyKey, UUID orderId, List<OrderLine> lines, Duration timeout,
            long deadlineEpochMillis) {
        probe(idempotencyKey, timeout);
        return Reservation.RESERVED;
    }

    @Override
    public void release(String idempotencyKey, String reservationKey, UUID orderId, Duration timeout,
            long deadlineEpochMillis) {
        probe(reservationKey, timeout);
    }

    /** Look-ups that failed so far. */
    int failures() {
        return failures.get();
    }

    /** Why the last look-up failed, or null. */
    String lastFailure() {
        return lastFailure;
    }

    private void probe(String key, Duration timeout) {
        if (failures.get() >= GIVE_UP_AFTER) {
            return;
        }
        try {
            client.probe("warm-up-" + key, timeout.compareTo(PROBE_TIMEOUT) < 0 ? timeout : PROBE_TIMEOUT);
        } catch (RuntimeException e) {
            failures.incrementAndGet();
            lastFailure = e.getMessage();
        }
    }
}
