package org.sagas.orchestrator.messaging;

import java.util.List;

/** The Kafka topics of the product (key = order id everywhere) and their dead-letter twins. */
public final class Topics {
    public static final String ORDERS_EVENTS = "orders.events";
    /** Orders placed and cancelled by clients through Kafka; key = the client's order reference (docs/events.md). */
    public static final String ORDERS_COMMANDS = "orders.commands";
    public static final String PAYMENTS_COMMANDS = "payments.commands";
    public static final String PAYMENTS_EVENTS = "payments.events";
    public static final String NOTIFICATIONS = "notifications";
    /** The payment provider's charges, as pulled from its listing API; key = charge key, compacted. */
    public static final String LEDGER_CHARGES = "ledger.charges";
    /** Inventory's reservations, as pulled from its listing API; key = reservation key, compacted. */
    public static final String LEDGER_RESERVATIONS = "ledger.reservations";
    /** What the reconciliation jobs found (docs/events.md). */
    public static final String RECONCILIATION_FINDINGS = "reconciliation.findings";
    /** Repairs the reconciler asks for (refund a charge, release a reservation), through the outbox. */
    public static final String RECONCILIATION_REPAIRS = "reconciliation.repairs";

    /** Header names every message carries. */
    public static final String MESSAGE_ID = "message-id";
    public static final String MESSAGE_TYPE = "message-type";
    public static final String CORRELATION_ID = "correlation-id";
    /** Header a dead-lettered message carries with the reason it was rejected. */
    public static final String DLT_REASON = "dlt-reason";

    /**
     * How long the product's topics keep records (set when it creates them): shorter than the
     * inbox's retention ({@code SAGA_INBOX_RETENTION_MS}, 7 days), so a message can never be
     * redelivered after the record of its first delivery was deleted.
     */
    public static final long RETENTION_MS = 3L * 24 * 60 * 60 * 1000;
    /**
     * How long dead-letter topics keep records: 30 days, for an operator to read and redrive them
     * (a broker's default of 7 would lose a dead letter over a long holiday).
     */
    public static final long DEAD_LETTER_RETENTION_MS = 30L * 24 * 60 * 60 * 1000;

    private Topics() {}

    public static boolean isDeadLetter(String topic) {
        return topic.endsWith(".dlt");
    }

    public static String deadLetter(String topic) {
        return topic + ".dlt";
    }

    /** Every topic the product uses, dead-letter topics included. */
    public static List<String> all() {
        return List.of(ORDERS_EVENTS, ORDERS_COMMANDS, PAYMENTS_COMMANDS, PAYMENTS_EVENTS, NOTIFICATIONS,
                deadLetter(ORDERS_EVENTS), deadLetter(ORDERS_COMMANDS), deadLetter(PAYMENTS_COMMANDS),
                deadLetter(PAYMENTS_EVENTS),
                deadLetter(NOTIFICATIONS), LEDGER_CHARGES, LEDGER_RESERVATIONS, RECONCILIATION_FINDINGS,
                RECONCILIATION_REPAIRS, deadLetter(RECONCILIATION_FINDINGS), deadLetter(RECONCILIATION_REPAIRS));
    }

    /** Topics that keep the last record of each key (a ledger's latest state per entry) instead of expiring. */
    public static boolean compacted(String topic) {
        return topic.equals(LEDGER_CHARGES) || topic.equals(LEDGER_RESERVATIONS);
    }
}
