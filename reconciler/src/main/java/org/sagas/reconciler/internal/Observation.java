package org.sagas.reconciler.internal;

import com.fasterxml.jackson.annotation.JsonSubTypes;
import com.fasterxml.jackson.annotation.JsonTypeInfo;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * One fact about an order, from any of the topology's inputs. {@code messageId} is the message's
 * {@code message-id} header (for dedup), or null for ledger entries, which carry their own version
 * (the feed cursor) instead.
 */
@JsonTypeInfo(use = JsonTypeInfo.Id.NAME, property = "fact")
@JsonSubTypes({
    @JsonSubTypes.Type(value = Observation.StatusSeen.class, name = "status"),
    @JsonSubTypes.Type(value = Observation.ChargeCommanded.class, name = "command"),
    @JsonSubTypes.Type(value = Observation.PaymentReplied.class, name = "reply"),
    @JsonSubTypes.Type(value = Observation.LedgerCharge.class, name = "charge"),
    @JsonSubTypes.Type(value = Observation.LedgerReservation.class, name = "reservation")
})
public sealed interface Observation {
    String orderId();

    String messageId();

    /** The order's status (from {@code orders.events}); {@code sagaVersion} orders them. */
    record StatusSeen(String orderId, String messageId, OrderStatus status, int sagaVersion, long totalCents,
            String currency) implements Observation {}

    /** A {@code ChargePayment} command went out. */
    record ChargeCommanded(String orderId, String messageId, String chargeKey, long amountCents, String currency)
            implements Observation {}

    /** A payment reply ({@code PaymentCaptured} / {@code PaymentDeclined}) came back. */
    record PaymentReplied(String orderId, String messageId, String type) implements Observation {}

    /** A charge as the provider's ledger shows it now. */
    record LedgerCharge(String orderId, String messageId, String chargeKey, long amountCents, String currency,
            String status, String cursor) implements Observation {}

    /** A reservation as inventory's ledger shows it now. */
    record LedgerReservation(String orderId, String messageId, String reservationKey, String status, String cursor)
            implements Observation {}
}
