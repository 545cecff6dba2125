package org.sagas.orchestrator.ordering;

import org.sagas.orchestrator.saga.SagaInstance;
import org.sagas.orchestrator.saga.SagaMigration;
import org.sagas.orchestrator.saga.SagaStatus;
import org.sagas.orchestrator.saga.SagaVersion;

/**
 * Which orders of version 1 may move to version 2 of the orders saga, and where they land
 * (docs/design.md, "Moving orders to another version"). Only an order that has not been charged can
 * still be screened before its charge:
 *
 * <ul>
 *   <li>reserving its stock (running or parked, e.g. pending while inventory is down): version 2's
 *       {@code RESERVE_STOCK}, then screened, then charged;</li>
 *   <li>releasing its stock (compensating at {@code RESERVE_STOCK}): version 2's same step; it ends as
 *       version 2 ends (a declined payment tells the customer in version 2's notice);</li>
 *   <li>awaiting its payment: refused — its charge is out, no screen can come before it;</li>
 *   <li>with an incident: refused — an operator settles it first, on the version it ran.</li>
 * </ul>
 *
 * Pure, immutable and thread-safe.
 */
public final class OrderSagaV1ToV2 implements SagaMigration<OrderData> {
    private static final SagaVersion V1 = new SagaVersion(OrderSaga.TYPE, 1);
    private static final SagaVersion V2 = new SagaVersion(OrderSaga.TYPE, 2);
    /** {@code RESERVE_STOCK} is the first step of both versions. */
    private static final int RESERVE_STOCK = 0;

    @Override
    public SagaVersion from() {
        return V1;
    }

    @Override
    public SagaVersion to() {
        return V2;
    }

    @Override
    public Plan plan(SagaInstance<OrderData> order) {
        if (order.incident() != null) {
            return new Plan.NoMapping("it has an incident (" + order.incident().cause() + "): settle it on "
                    + V1 + " first");
        }
        boolean reserving = order.status() == SagaStatus.RUNNING || order.status() == SagaStatus.PARKED;
        if (OrderSaga.RESERVE_STOCK.equals(order.step())
                && (reserving || order.status() == SagaStatus.COMPENSATING)) {
            return new Plan.MoveTo(RESERVE_STOCK);
        }
        if (OrderSaga.CHARGE_PAYMENT.equals(order.step())) {
            return new Plan.NoMapping("its charge was sent on " + V1 + ": no fraud screen can come before it");
        }
        return new Plan.NoMapping("no mapping for " + order.status() + " at " + order.step());
    }
}
