package org.sagas.orchestrator.ordering;

import org.sagas.orchestrator.saga.StepContext;
import org.sagas.orchestrator.saga.StepResult;

/**
 * The fraud screen of the orders saga (version 2) as a step result: cleared / refused /
 * unavailable. Implementations call the fraud port through its resilience stack. A screening has
 * no effect to undo, so the step has no compensation.
 */
public interface FraudScreen {
    StepResult<OrderData> screen(OrderData order, StepContext context);
}
