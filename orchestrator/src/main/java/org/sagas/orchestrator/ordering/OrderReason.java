package org.sagas.orchestrator.ordering;

import java.util.Arrays;
import java.util.Optional;
import org.sagas.orchestrator.saga.Reason;

/**
 * The stable reason codes of the orders saga that customers see in an order's history and its
 * notices (docs/design.md, "Statuses"); the participant's own text goes only into a reason's detail,
 * for logs and operators. Decisions (the HTTP answer above all) switch on these, never on text.
 */
public enum OrderReason {
    /** Inventory could not be reached or failed: parked as pending (or refused when degraded mode is off). */
    INVENTORY_UNAVAILABLE("inventory_unavailable"),
    /** Inventory answered that the stock is not there. */
    OUT_OF_STOCK("out_of_stock"),
    /** A participant refused the order's request for good (e.g. inventory answered 400). */
    ORDER_REFUSED("order_refused"),
    /** The payment provider declined the charge. */
    PAYMENT_DECLINED("payment_declined"),
    /** The payment provider refused the charge request for good (nothing was charged). */
    PAYMENT_REFUSED("payment_refused"),
    /** The fraud service could not be reached or failed: parked as pending (version 2 of the saga). */
    FRAUD_UNAVAILABLE("fraud_unavailable"),
    /** The fraud screen refused the order: cancelled, its stock released, nothing charged. */
    FRAUD_REFUSED("fraud_refused"),
    /** The order waited for inventory longer than its time to live. */
    EXPIRED(Reason.EXPIRED),
    /** The customer cancelled the order before it was confirmed ({@code POST /orders/{id}/cancel}). */
    CANCELLED_BY_CUSTOMER("cancelled_by_customer");

    private final String code;

    OrderReason(String code) {
        this.code = code;
    }

    public String code() {
        return code;
    }

    /** This reason with {@code detail} for operators. */
    public Reason because(String detail) {
        return Reason.of(code, detail);
    }

    /** The order reason a saga reason names, if it is one. */
    public static Optional<OrderReason> of(Reason reason) {
        return reason == null ? Optional.empty() : ofCode(reason.code());
    }

    /** The order reason with {@code code}, if any (codes travel in reply messages too). */
    public static Optional<OrderReason> ofCode(String code) {
        return Arrays.stream(values()).filter(r -> r.code.equals(code)).findFirst();
    }
}
