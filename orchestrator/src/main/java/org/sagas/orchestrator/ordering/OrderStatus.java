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

    /**
     * The status an order saga's label stands for: the orders saga labels every situation with one of
     * these names ({@link OrderSaga#label}), so the engine's generic text reads back as the type.
     *
     * @throws IllegalArgumentException for a label that is no order status (a saga of another type)
     */
    public static OrderStatus ofLabel(String label) {
        return valueOf(label);
    }
}
