package org.sagas.orchestrator.ordering;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.sagas.orchestrator.resilience.Deadline;
import org.sagas.orchestrator.resilience.DependencyUnavailable;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.saga.StepContext;
import org.sagas.orchestrator.saga.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reserve and release through the inventory's resilience stack. Out of stock is an answer
 * (the saga's business path); a failed or unreachable inventory parks the order — the degraded
 * mode — counted in {@code saga_fallback_total{operation}} and logged with the order and the cause.
 * Thread-safe.
 */
public final class ResilientInventoryActions implements InventoryActions {
    private static final Logger log = LoggerFactory.getLogger(ResilientInventoryActions.class);

    private final InventoryPort inventory;
    private final ResilientDependency stack;
    private final Counter reserveFallbacks;
    private final Counter releaseFallbacks;
    private final boolean degradedMode;

    /**
     * @param degradedMode true (the product) parks orders when inventory is unavailable; false
     *     fails them instead — only for comparing configurations in the cascade benchmark
     */
    public ResilientInventoryActions(InventoryPort inventory, ResilientDependency stack, MeterRegistry registry,
            boolean degradedMode) {
        this.inventory = inventory;
        this.stack = stack;
        this.degradedMode = degradedMode;
        this.reserveFallbacks = Counter.builder("saga.fallback").tag("operation", "reserve")
                .description("Calls that could not be made or failed transiently and were parked").register(registry);
        this.releaseFallbacks = Counter.builder("saga.fallback").tag("operation", "release")
                .description("Calls that could not be made or failed transiently and were parked").register(registry);
    }

    @Override
    public StepResult<OrderData> reserve(OrderData order, StepContext context) {
        try {
            InventoryPort.Reservation answer = stack.call(Deadline.ofEpochMillis(context.deadlineEpochMillis()),
                    timeout -> inventory.reserve(order.reserveKey(), order.orderId(), order.lines(), timeout,
                            context.deadlineEpochMillis()));
            return answer == InventoryPort.Reservation.RESERVED ? StepResult.done(order)
                    : StepResult.refused("out of stock");
        } catch (DependencyUnavailable e) {
            if (!degradedMode) {
                log.warn("order {} failed: inventory {} ({}) and degraded mode is off", order.orderId(), e.reason(),
                        cause(e));
                return StepResult.refused(OrderSaga.INVENTORY_UNAVAILABLE + ": " + e.reason());
            }
            reserveFallbacks.increment();
            log.warn("order {} pending confirmation: inventory {} ({})", order.orderId(), e.reason(), cause(e));
            return StepResult.unavailable(OrderSaga.INVENTORY, e.reason() + ": " + cause(e));
        }
    }

    @Override
    public StepResult<OrderData> release(OrderData order, StepContext context) {
        try {
            stack.call(Deadline.ofEpochMillis(context.deadlineEpochMillis()), timeout -> {
                inventory.release(order.releaseKey(), order.reserveKey(), order.orderId(), timeout,
                        context.deadlineEpochMillis());
                return Boolean.TRUE;
            });
            return StepResult.done(order);
        } catch (DependencyUnavailable e) {
            releaseFallbacks.increment();
            log.warn("order {} release parked: inventory {} ({})", order.orderId(), e.reason(), cause(e));
            return StepResult.unavailable(OrderSaga.INVENTORY, e.reason() + ": " + cause(e));
        }
    }

    private static String cause(Throwable e) {
        Throwable c = e.getCause() != null ? e.getCause() : e;
        return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    }
}
