package org.sagas.orchestrator.ordering;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages.ChargePayment;
import org.sagas.orchestrator.ordering.OrderMessages.CustomerNotice;
import org.sagas.orchestrator.ordering.OrderMessages.OrderStatusChanged;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.sagas.orchestrator.saga.Reason;
import org.sagas.orchestrator.saga.SagaDefinition;
import org.sagas.orchestrator.saga.SagaInstance;
import org.sagas.orchestrator.saga.SagaStatus;
import org.sagas.orchestrator.saga.SagaStep;
import org.sagas.orchestrator.saga.Situation;
import org.sagas.orchestrator.saga.StepResult;
import org.sagas.orchestrator.saga.Transition;

/**
 * The orders saga: reserve stock (synchronous, may park on inventory), charge payment
 * (asynchronous, through the outbox), then confirm — or release the stock and cancel.
 *
 * <p>Two versions run side by side (docs/design.md, "A second version of a saga"): version 1 as
 * above ({@link #OrderSaga(InventoryActions, Duration)}); version 2 ({@link #v2}) screens the order
 * for fraud between the reservation and the charge, and tells a customer whose payment was declined
 * so in a notice of its own. An instance runs the version it started on to its end.
 * Immutable and thread-safe.
 */
public final class OrderSaga implements SagaDefinition<OrderData> {
    public static final String TYPE = "order";
    public static final String RESERVE_STOCK = "RESERVE_STOCK";
    public static final String SCREEN_FRAUD = "SCREEN_FRAUD";
    public static final String CHARGE_PAYMENT = "CHARGE_PAYMENT";
    public static final String INVENTORY = "inventory";
    /** What version 2's orders park on while the fraud service is unavailable. */
    public static final String FRAUD = "fraud";

    private final int version;
    private final List<SagaStep<OrderData>> steps;

    /** Version 1: reserve stock, charge payment. */
    public OrderSaga(InventoryActions inventory, Duration paymentTimeout) {
        this(1, List.of(
                new SagaStep.Sync<>(RESERVE_STOCK, inventory::reserve, inventory::release),
                chargeStep(paymentTimeout)));
    }

    private OrderSaga(int version, List<SagaStep<OrderData>> steps) {
        this.version = version;
        this.steps = steps;
    }

    /**
     * Version 2: reserve stock, screen for fraud (a refusal cancels the order, its stock released and
     * nothing charged; an unavailable fraud service parks it on {@link #FRAUD}), charge payment.
     */
    public static OrderSaga v2(InventoryActions inventory, FraudScreen fraud, Duration paymentTimeout) {
        return new OrderSaga(2, List.of(
                new SagaStep.Sync<>(RESERVE_STOCK, inventory::reserve, inventory::release),
                new SagaStep.Sync<>(SCREEN_FRAUD, fraud::screen, null),
                chargeStep(paymentTimeout)));
    }

    private static SagaStep<OrderData> chargeStep(Duration paymentTimeout) {
        return new SagaStep.Async<>(CHARGE_PAYMENT, OrderSaga::chargePayment, OrderSaga::onPaymentReply,
                paymentTimeout, OrderSaga::refundPayment);
    }

    @Override
    public int version() {
        return version;
    }

    @Override
    public String type() {
        return TYPE;
    }

    @Override
    public Class<OrderData> dataType() {
        return OrderData.class;
    }

    @Override
    public List<SagaStep<OrderData>> steps() {
        return steps;
    }

    @Override
    public String label(Situation<OrderData> s) {
        return status(s).name();
    }

    static OrderStatus status(Situation<OrderData> s) {
        switch (s.status()) {
            case RUNNING:
            case PARKED:
                return OrderStatus.PENDING_CONFIRMATION;
            case AWAITING_REPLY:
                return s.stepTimedOut() ? OrderStatus.PAYMENT_UNKNOWN : OrderStatus.AWAITING_PAYMENT;
            case COMPENSATING:
                return OrderStatus.COMPENSATING;
            case COMPLETED:
                return OrderStatus.CONFIRMED;
            case COMPENSATED:
                return OrderStatus.CANCELLED;
            case FAILED:
                // Refused while the customer waited: rejected. Refused after it was accepted as pending
                // (parked, or its reservation tried again after it threw): cancelled.
                return s.parkCount() == 0 ? OrderStatus.REJECTED : OrderStatus.CANCELLED;
            default:
                throw new IllegalStateException("no order status for " + s.status());
        }
    }

    /**
     * The customer's notice. The order's end itself is told by its last {@code OrderStatusChanged}
     * (written with the same transition, see {@link #events}): the older end-of-order events
     * said the same again in a row of their own, so they are no longer written (docs/decisions/0019).
     */
    @Override
    public List<OutgoingMessage> onEnd(SagaInstance<OrderData> ended, Reason reason) {
        OrderData o = ended.data();
        // Customers get the stable code only; the detail stays in the history for operators.
        String code = reason.code();
        if (ended.status() == SagaStatus.COMPLETED) {
            return List.of(notice(o, "CONFIRMED", "Your order is confirmed."));
        }
        if (OrderStatus.ofLabel(ended.label()) == OrderStatus.REJECTED) {
            return List.of(notice(o, "REJECTED",
                    "Sorry, this order cannot be served (" + code + "). Nothing was charged."));
        }
        if (version >= 2 && OrderReason.of(reason).orElse(null) == OrderReason.PAYMENT_DECLINED) {
            // Version 2's changed compensation: the stock is put back as before, and the customer is
            // told it was the payment, so they may order again with another means of payment.
            return List.of(notice(o, "PAYMENT_DECLINED", "Your payment was declined, so the order is cancelled"
                    + " and its items were put back. Nothing was charged; you may order again with another"
                    + " means of payment."));
        }
        if (OrderReason.of(reason).orElse(null) == OrderReason.CANCELLED_BY_CUSTOMER) {
            return List.of(notice(o, "CANCELLED", "Your order is cancelled, as you asked. Nothing was charged."));
        }
        return List.of(notice(o, "CANCELLED", "Sorry, we could not complete your order (" + code
                + "). Nothing was charged."));
    }

    /**
     * Tells every change of the order's status (its saga's label) as an event, written with the
     * transition. Nothing is stored under the Idempotency-Key when the submission resolves: a repeated
     * key is answered from that transition's history row (see {@link OrderService}).
     */
    @Override
    public List<OutgoingMessage> events(Transition<OrderData> t) {
        SagaInstance<OrderData> after = t.after();
        // The order's status is the saga's label (the orders view). Its first event tells how the
        // submission resolved (the start itself, a status held for the few milliseconds before the
        // reservation's outcome, is told by none: ADR 0019); after it, only a real change counts: a
        // transition that keeps the status (a parked retry) is no event.
        boolean changed = after.version() != 0 && (untouched(t.before())
                || OrderStatus.ofLabel(after.label()) != OrderStatus.ofLabel(t.before().label()));
        if (!changed) {
            return List.of();
        }
        // Every status change is an event, in the transition's transaction and outbox row
        // (docs/events.md), after the transition's own messages.
        OrderData o = after.data();
        return List.of(new OutgoingMessage(Topics.ORDERS_EVENTS, o.orderId().toString(),
                OrderMessages.ORDER_STATUS_CHANGED, new OrderStatusChanged(o.orderId(), o.customerId(), after.label(),
                        t.reason().code(), o.totalCents(), o.currency(), after.version(), java.time.Instant.now())));
    }

    /** Still as it was started: its first transition (whoever runs it) resolves the submission. */
    private static boolean untouched(SagaInstance<OrderData> s) {
        return s.status() == SagaStatus.RUNNING && s.stepIndex() == 0 && s.stepRetries() == 0 && s.parkCount() == 0;
    }

    /** The answer a submission resolved by {@code t} gets; a replay reads the same back (OrderStore#resolution). */
    static SubmitOutcome answerFor(Transition<OrderData> t) {
        return outcome(t.after().id(), OrderStatus.ofLabel(t.after().label()), t.after().cause());
    }

    /**
     * The outcome of a submission resolved to {@code status} because of {@code cause}: one function for
     * the live answer and for a replay, so both answer the same whoever resolved the submission.
     */
    static SubmitOutcome outcome(UUID orderId, OrderStatus status, Reason cause) {
        if (status == OrderStatus.PENDING_CONFIRMATION || status == OrderStatus.AWAITING_PAYMENT) {
            return new SubmitOutcome.Accepted(orderId, status);
        }
        return new SubmitOutcome.Refused(orderId, OrderReason.of(cause).orElse(OrderReason.ORDER_REFUSED));
    }

    /** A move out of the first step as it was created: its outcome is the submission's answer. */
    static boolean resolvesSubmission(Transition<OrderData> t) {
        return t.before().status() == SagaStatus.RUNNING && t.before().stepIndex() == 0;
    }

    private static OutgoingMessage notice(OrderData o, String kind, String message) {
        return new OutgoingMessage(Topics.NOTIFICATIONS, o.orderId().toString(), OrderMessages.CUSTOMER_NOTIFIED,
                new CustomerNotice(o.orderId(), o.customerId(), kind, message));
    }

    private static OutgoingMessage chargePayment(UUID sagaId, OrderData o) {
        return new OutgoingMessage(Topics.PAYMENTS_COMMANDS, o.orderId().toString(), OrderMessages.CHARGE_PAYMENT,
                new ChargePayment(o.orderId(), o.customerId(), o.totalCents(), o.currency(), o.chargeKey()));
    }

    /** Only a cancel (an operator's or the customer's) undoes the charge step: a declined charge took nothing. */
    private static OutgoingMessage refundPayment(UUID sagaId, OrderData o) {
        return new OutgoingMessage(Topics.PAYMENTS_COMMANDS, o.orderId().toString(), OrderMessages.REFUND_PAYMENT,
                new OrderMessages.RefundPayment(o.orderId(), o.chargeKey(), OrderKeys.refund(o.orderId())));
    }

    private static StepResult<OrderData> onPaymentReply(OrderData o, IncomingMessage reply) {
        switch (reply.type()) {
            case OrderMessages.PAYMENT_CAPTURED:
                return StepResult.done(o);
            case OrderMessages.PAYMENT_DECLINED:
                String why = reply.payload() != null && reply.payload().hasNonNull("reason")
                        ? reply.payload().get("reason").asText() : "declined";
                // A provider that refused the request for good says so by a code; anything else is a decline.
                OrderReason reason = reply.payload() != null && reply.payload().hasNonNull("code")
                        && OrderReason.ofCode(reply.payload().get("code").asText()).orElse(null)
                                == OrderReason.PAYMENT_REFUSED ? OrderReason.PAYMENT_REFUSED
                        : OrderReason.PAYMENT_DECLINED;
                return StepResult.refused(reason.because(why));
            default:
                return null;
        }
    }
}
