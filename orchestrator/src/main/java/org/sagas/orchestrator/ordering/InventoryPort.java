package org.sagas.orchestrator.ordering;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.sagas.orchestrator.resilience.TransientFailure;

/**
 * The inventory service, as the saga sees it. Implementations do not retry (retries live in one
 * layer, the resilience stack) and are idempotent by key.
 */
public interface InventoryPort {

    /** The inventory's answer to a reservation. */
    enum Reservation { RESERVED, OUT_OF_STOCK }

    /**
     * Reserves every line or none, under {@code idempotencyKey} ({@code <orderId>:reserve}).
     *
     * @param timeout how long this attempt may take
     * @param deadlineEpochMillis the caller's absolute deadline, passed on to the service
     * @throws TransientFailure when the service failed (timeout, 5xx, refused connection)
     */
    Reservation reserve(String idempotencyKey, UUID orderId, List<OrderLine> lines, Duration timeout,
            long deadlineEpochMillis);

    /**
     * Releases what {@code reservationKey} reserved, under {@code idempotencyKey}
     * ({@code <orderId>:release}). Releasing an unknown or released reservation is a no-op.
     *
     * @throws TransientFailure when the service failed
     */
    void release(String idempotencyKey, String reservationKey, UUID orderId, Duration timeout,
            long deadlineEpochMillis);
}
