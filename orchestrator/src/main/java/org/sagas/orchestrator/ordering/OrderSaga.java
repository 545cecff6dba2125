package org.sagas.orchestrator.ordering;

import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages.ChargePayment;
import org.sagas.orchestrator.ordering.OrderMessages.CustomerNotice;
import org.sagas.orchestrator.ordering.OrderMessages.OrderCancelled;
import org.sagas.orchestrator.ordering.OrderMessages.OrderConfirmed;
import org.sagas.orchestrator.ordering.OrderMessages.OrderRejected;
import org.sagas.orchestrator.ordering.OrderMessages.OrderStatusChanged;
import org.sagas.orchestrator.persistence.OutboxWriter;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.OutgoingMessage;
import org.sagas.orchestrator.saga.SagaDefinition;
import org.sagas.orchestrator.saga.SagaInstance;
import org.sagas.orchestrator.saga.SagaStatus;
import org.sagas.orchestrator.saga.SagaStep;
import org.sagas.orchestrator.saga.Situation;
import org.sagas.orchestrator.saga.StepResult;

/**
 * The orders saga: reserve stock (synchronous, may park on inventory), charge payment
 * (asynchronous, through the outbox), then confirm — or release the stock and cancel.
 * Immutable and thread-safe.
 */
public final class OrderSaga implements SagaDefinition<OrderData> {
    public static final String TYPE = "order";
    public static final String RESERVE_STOCK = "RESERVE_STOCK";
    public static final String CHARGE_PAYMENT = "CHARGE_PAYMENT";
    public static final String INVENTORY = "inventory";
    /** Why an order was refused when inventory could not be reached and degraded mode is off. */
    public static final String INVENTORY_UNAVAILABLE = "inventory unavailable";

    private final List<SagaStep<OrderData>> steps;

    public OrderSaga(InventoryActions inventory, Duration paymentTimeout) {
        this.steps = List.of(
                new SagaStep.Sync<>(RESERVE_STOCK, inventory::reserve, inventory::release),
                new SagaStep.Async<>(CHARGE_PAYMENT, OrderSaga::chargePayment, OrderSaga::onPaymentReply,
                        paymentTimeout, null));
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
                // Refused while the customer waited: rejected. Refused after it was accepted as pending: cancelled.
                return s.parkCount() == 0 ? OrderStatus.REJECTED : OrderStatus.CANCELLED;
            default:
                throw new IllegalStateException("no order status for " + s.status());
        }
    }

    @Override
    public List<OutgoingMessage> onEnd(SagaInstance<OrderData> ended, String reason) {
        OrderData o = ended.data();
        String key = o.orderId().toString();
        if (ended.status() == SagaStatus.COMPLETED) {
            return List.of(
                    new OutgoingMessage(Topics.ORDERS_EVENTS, key, OrderMessages.ORDER_CONFIRMED,
                            new OrderConfirmed(o.orderId(), o.customerId(), o.totalCents(), o.currency())),
                    notice(o, "CONFIRMED", "Your order is confirmed."));
        }
        if (OrderStatus.REJECTED.name().equals(ended.label())) {
            return List.of(
                    new OutgoingMessage(Topics.ORDERS_EVENTS, key, OrderMessages.ORDER_REJECTED,
                            new OrderRejected(o.orderId(), o.customerId(), reason)),
                    notice(o, "REJECTED", "Sorry, this order cannot be served (" + reason + "). Nothing was charged."));
        }
        return List.of(
                new OutgoingMessage(Topics.ORDERS_EVENTS, key, OrderMessages.ORDER_CANCELLED,
                        new OrderCancelled(o.orderId(), o.customerId(), reason)),
                notice(o, "CANCELLED", "Sorry, we could not complete your order (" + reason
                        + "). Nothing was charged."));
    }

    @Override
    public void onTransition(Handle handle, SagaInstance<OrderData> after, String reason) {
        OrderStatus status = OrderStatus.valueOf(after.label());
        // Version 0: the order row was inserted with this status in the same transaction.
        boolean changed = after.version() == 0 || OrderStore.updateStatus(handle, after.id(), status);
        if (changed) {
            // Every status change is an event, in the transition's transaction (DESIGN.md 9, docs/events.md).
            OrderData o = after.data();
            OutboxWriter.append(handle, List.of(new OutgoingMessage(Topics.ORDERS_EVENTS, o.orderId().toString(),
                    OrderMessages.ORDER_STATUS_CHANGED, new OrderStatusChanged(o.orderId(), o.customerId(),
                            status.name(), reason, o.totalCents(), o.currency(), after.version(),
                            java.time.Instant.now()))), after.id().toString());
        }
    }

    private static OutgoingMessage notice(OrderData o, String kind, String message) {
        return new OutgoingMessage(Topics.NOTIFICATIONS, o.orderId().toString(), OrderMessages.CUSTOMER_NOTIFIED,
                new CustomerNotice(o.orderId(), o.customerId(), kind, message));
    }

    private static OutgoingMessage chargePayment(UUID sagaId, OrderData o) {
        return new OutgoingMessage(Topics.PAYMENTS_COMMANDS, o.orderId().toString(), OrderMessages.CHARGE_PAYMENT,
                new ChargePayment(o.orderId(), o.customerId(), o.totalCents(), o.currency(), o.chargeKey()));
    }

    private static StepResult<OrderData> onPaymentReply(OrderData o, IncomingMessage reply) {
        switch (reply.type()) {
            case OrderMessages.PAYMENT_CAPTURED:
                return StepResult.done(o);
            case OrderMessages.PAYMENT_DECLINED:
                String why = reply.payload() != null && reply.payload().hasNonNull("reason")
                        ? reply.payload().get("reason").asText() : "declined";
                return StepResult.refused("payment declined: " + why);
            default:
                return null;
        }
    }
}
