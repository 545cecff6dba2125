package org.sagas.reconciler;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.UUID;

/**
 * One finding as published on {@code reconciliation.findings} (key = order id) and stored for the
 * admin API: {@code {"findingId","kind","state","orderId","subject","detail","suspectedAt","openedAt",
 * "resolvedAt","action","repairKey"}}. Its id is derived from kind, order and subject, so the same
 * discrepancy found again (after a restart, by another instance) is the same finding.
 *
 * @param subject what the finding is about: a charge key, a reservation key
 * @param suspectedAt when the discrepancy was first seen (it became a finding after a grace period)
 * @param repairKey the idempotency key of the automatic repair, or null
 */
public record Finding(UUID findingId, FindingKind kind, FindingState state, String orderId, String subject,
        String detail, Instant suspectedAt, Instant openedAt, Instant resolvedAt, RepairAction action,
        String repairKey) {

    /** The id of the finding of {@code kind} about {@code subject} of {@code orderId}. */
    public static UUID idOf(FindingKind kind, String orderId, String subject) {
        return UUID.nameUUIDFromBytes((kind + "|" + orderId + "|" + subject).getBytes(StandardCharsets.UTF_8));
    }

    /** The message id of this finding's event in this state: the same on every re-emission. */
    public UUID messageId() {
        return UUID.nameUUIDFromBytes((findingId + "|" + state).getBytes(StandardCharsets.UTF_8));
    }

    public boolean isOpen() {
        return state == FindingState.OPEN;
    }
}
