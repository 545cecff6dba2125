package org.sagas.orchestrator.ordering;

/** The customer-visible status of an order (docs/design.md, "Statuses"). */
public enum OrderStatus {
    PENDING_CONFIRMATION(false),
    AWAITING_PAYMENT(false),
    PAYMENT_UNKNOWN(false),
    COMPENSATING(false),
    CONFIRMED(true),
    CANCELLED(true),
    REJECTED(true);

    private final boolean terminal;

    OrderStatus(boolean terminal) {
        this.terminal = terminal;
    }

    public boolean isTerminal() {
        return terminal;
    }
}
