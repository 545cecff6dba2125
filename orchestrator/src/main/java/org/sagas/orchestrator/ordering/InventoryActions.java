package org.sagas.orchestrator.ordering;

import org.sagas.orchestrator.saga.StepContext;
import org.sagas.orchestrator.saga.StepResult;

/**
 * The inventory side of the orders saga as step results: reserved / out of stock / unavailable.
 * Implementations call the inventory port through the resilience stack.
 */
public interface InventoryActions {
    StepResult<OrderData> reserve(OrderData order, StepContext context);

    StepResult<OrderData> release(OrderData order, StepContext context);
}
