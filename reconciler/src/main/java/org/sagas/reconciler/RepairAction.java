package org.sagas.reconciler;

/** The automatic repair of a finding. */
public enum RepairAction {
    /** Refund the charge under {@code <charge key>:refund}. */
    REFUND,
    /** Release the reservation under the order's release key. */
    RELEASE,
    /** Nothing automatic: an operator decides. */
    NONE
}
