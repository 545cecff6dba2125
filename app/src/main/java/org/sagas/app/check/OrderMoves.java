package org.sagas.app.check;

import java.util.EnumSet;
import java.util.Map;
import java.util.Set;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.orchestrator.saga.SagaStatus;

/**
 * Which order status may follow which on {@code orders.events}: derived from the engine's own
 * moves ({@link SagaStatus#canMoveTo}) through the statuses each order status stands for (the
 * orders saga's labels, {@code OrderSaga}), so it never says more than the engine allows.
 */
final class OrderMoves {
    /** The saga statuses an order status is the label of. */
    private static final Map<OrderStatus, Set<SagaStatus>> LABELLED = Map.of(
            OrderStatus.PENDING_CONFIRMATION, EnumSet.of(SagaStatus.RUNNING, SagaStatus.PARKED),
            OrderStatus.AWAITING_PAYMENT, EnumSet.of(SagaStatus.AWAITING_REPLY),
            OrderStatus.PAYMENT_UNKNOWN, EnumSet.of(SagaStatus.AWAITING_REPLY),
            OrderStatus.COMPENSATING, EnumSet.of(SagaStatus.COMPENSATING),
            OrderStatus.CONFIRMED, EnumSet.of(SagaStatus.COMPLETED),
            OrderStatus.CANCELLED, EnumSet.of(SagaStatus.COMPENSATED, SagaStatus.FAILED),
            OrderStatus.REJECTED, EnumSet.of(SagaStatus.FAILED));

    private OrderMoves() {}

    /** Whether an event with status {@code next} may follow one with {@code from} for the same order. */
    static boolean allowed(OrderStatus from, OrderStatus next) {
        if (from.isTerminal()) {
            return false;
        }
        for (SagaStatus a : LABELLED.get(from)) {
            for (SagaStatus b : LABELLED.get(next)) {
                if (a.canMoveTo(b)) {
                    return true;
                }
            }
        }
        return false;
    }
}
