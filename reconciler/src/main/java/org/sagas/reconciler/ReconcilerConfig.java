package org.sagas.reconciler;

import java.time.Duration;

/**
 * How long the reconciliation waits before a discrepancy becomes a finding. Participants' ledgers
 * and the orders' events reach the topology by different paths and at different times (a capture
 * is in the ledger before the order confirms), so a discrepancy must last before it counts.
 * Immutable.
 *
 * @param grace how long a discrepancy about a known order must last to become a finding
 * @param unknownOrderGrace the same for a ledger entry whose order the topology has never seen
 *     (longer: the order's events may lag behind the ledger)
 * @param replyWindow how long a charge command may go without a payment reply
 * @param checkInterval how often due suspicions are checked (wall-clock)
 */
public record ReconcilerConfig(Duration grace, Duration unknownOrderGrace, Duration replyWindow,
        Duration checkInterval) {

    public ReconcilerConfig {
        positive(grace, "grace");
        positive(unknownOrderGrace, "unknownOrderGrace");
        positive(replyWindow, "replyWindow");
        positive(checkInterval, "checkInterval");
    }

    /** 30 s grace, 2 min for unknown orders and for a reply, checks every second. */
    public static ReconcilerConfig defaults() {
        return new ReconcilerConfig(Duration.ofSeconds(30), Duration.ofMinutes(2), Duration.ofMinutes(2),
                Duration.ofSeconds(1));
    }

    private static void positive(Duration d, String name) {
        if (d == null || d.isNegative() || d.isZero()) {
            throw new IllegalArgumentException(name + " must be a positive duration (got " + d + ")");
        }
    }
}
