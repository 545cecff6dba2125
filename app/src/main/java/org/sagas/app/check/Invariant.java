package org.sagas.app.check;

/**
 * What {@code ./sagas check} judges (docs/operations.md, "Checking the invariants"), in the order
 * its report lists them. Each defect is reported under one invariant: a second capture of a
 * confirmed order is {@link #CHARGED_TWICE}, not also {@link #CONFIRMED_WITHOUT_CAPTURE}.
 */
public enum Invariant {
    /** Every accepted order ends CONFIRMED, CANCELLED or REJECTED (after the settle time). */
    NOT_TERMINAL("accepted orders not terminal after the settle time"),
    /** At most one CAPTURED charge per order at the payment provider. */
    CHARGED_TWICE("orders with more than one captured charge"),
    /** A CONFIRMED order has its capture (a second one is {@link #CHARGED_TWICE}). */
    CONFIRMED_WITHOUT_CAPTURE("confirmed orders without a captured charge"),
    /** A CANCELLED or REJECTED order keeps no capture (refunded or never made). */
    CAPTURE_NOT_REFUNDED("cancelled or rejected orders with a capture not refunded"),
    /** Per SKU: stocked - confirmed quantities - held by live orders = available (ids are SKUs). */
    STOCK_MISMATCH("SKUs whose stock does not add up"),
    /** A CANCELLED or REJECTED order holds no RESERVED reservation. */
    RESERVED_NOT_LIVE("terminal orders still holding a reservation"),
    /** The outbox (and its dead letters) holds no row older than the bound (ids are the rows' order ids). */
    OUTBOX_STUCK("outbox rows unpublished longer than the bound"),
    /** Per order on orders.events: sagaVersion grows and each status may follow the one before. */
    EVENTS_OUT_OF_ORDER("orders whose events on orders.events are out of order"),
    /** No saga waits for an operator (an incident). */
    OPEN_INCIDENTS("open incidents"),
    /** No reconciliation finding is open. */
    OPEN_FINDINGS("open reconciliation findings");

    private final String title;

    Invariant(String title) {
        this.title = title;
    }

    /** One line saying what fails it. */
    public String title() {
        return title;
    }
}
