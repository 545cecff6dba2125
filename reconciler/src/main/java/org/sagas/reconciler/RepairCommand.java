package org.sagas.reconciler;

import java.util.UUID;

/**
 * An automatic repair, on {@code reconciliation.repairs} (key = order id), written to the outbox
 * with the finding that asks for it. Message type {@code RefundCharge} or {@code ReleaseReservation}.
 *
 * @param subject the charge key to refund, or the reservation key to release
 * @param repairKey the repair's own idempotency key: carried out twice, it has one effect
 */
public record RepairCommand(UUID findingId, String orderId, String subject, String repairKey) {
    public static final String REFUND_CHARGE = "RefundCharge";
    public static final String RELEASE_RESERVATION = "ReleaseReservation";
}
