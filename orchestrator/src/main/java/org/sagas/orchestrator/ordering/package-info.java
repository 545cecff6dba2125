/**
 * Everything that knows what an order is: the orders saga ({@link
 * org.sagas.orchestrator.ordering.OrderSaga}), its steps' actions through the resilience stack
 * ({@link org.sagas.orchestrator.ordering.ResilientInventoryActions}), the ports it calls
 * ({@link org.sagas.orchestrator.ordering.InventoryPort}, {@link
 * org.sagas.orchestrator.ordering.PaymentProvider}), submission with idempotency keys ({@link
 * org.sagas.orchestrator.ordering.OrderService}), the one store with every SQL statement on
 * {@code orders} ({@link org.sagas.orchestrator.ordering.OrderStore}), the derived participant
 * keys ({@link org.sagas.orchestrator.ordering.OrderKeys}), its gauges and the payment reconciler.
 *
 * <p>The orders' half of degraded mode lives here: when inventory cannot be reached the reserve
 * step answers <em>unavailable</em> and the engine parks the order as {@code
 * PENDING_CONFIRMATION}; out of stock is an answer, not a failure. Version 2 of the saga adds its
 * fraud screen ({@link org.sagas.orchestrator.ordering.ResilientFraudScreen}), which parks the
 * order the same way while the fraud service is unavailable.
 */
package org.sagas.orchestrator.ordering;
