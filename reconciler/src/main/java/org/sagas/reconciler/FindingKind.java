package org.sagas.reconciler;

/** What the reconciliation found (docs/design.md, "Reconciliation"), and the repair each kind gets. */
public enum FindingKind {
    /** A captured charge whose order is cancelled, rejected or unknown, or a second capture: refunded. */
    CHARGED_NOT_CONFIRMED(RepairAction.REFUND),
    /** A confirmed order with no captured charge: for an operator. */
    CONFIRMED_NOT_CHARGED(RepairAction.NONE),
    /** A charge command with no payment reply within the window: for an operator (and the PAYMENT_UNKNOWN poller). */
    CHARGE_WITHOUT_REPLY(RepairAction.NONE),
    /** A held reservation whose order is not live: released. */
    RESERVED_NOT_ORDERED(RepairAction.RELEASE),
    /** The captured amount differs from the order's total: for an operator. */
    AMOUNT_MISMATCH(RepairAction.NONE);

    private final RepairAction action;

    FindingKind(RepairAction action) {
        this.action = action;
    }

    public RepairAction action() {
        return action;
    }
}
