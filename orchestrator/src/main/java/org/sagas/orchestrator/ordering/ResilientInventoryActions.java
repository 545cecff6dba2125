package org.sagas.orchestrator.ordering;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import org.sagas.orchestrator.resilience.Deadline;
import org.sagas.orchestrator.resilience.DependencyUnavailable;
import org.sagas.orchestrator.resilience.ParticipantRefused;
import org.sagas.orchestrator.resilience.Permit;
import org.sagas.orchestrator.resilience.Priority;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.saga.Reason;
import org.sagas.orchestrator.saga.StepContext;
import org.sagas.orchestrator.saga.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reserve and release through the inventory's resilience stack, each participant outcome mapped
 * to its {@link StepResult} type. Out of stock and a refused request are answers (the saga's
 * business path: the order is rejected, or cancelled once accepted); a failed or unreachable
 * inventory parks the order — the degraded mode — counted in {@code saga_fallback_total{operation}}
 * and logged with the order and the cause; an attempt that may have reserved is an unknown
 * outcome, settled by retrying under the same key, or undone by it. Thread-safe.
 */
public final class ResilientInventoryActions implements InventoryActions {
    private static final Logger log = LoggerFactory.getLogger(ResilientInventoryActions.class);

    private final InventoryPort inventory;
    private final ResilientDependency stack;
    private final Counter reserveFallbacks;
    private final Counter releaseFallbacks;
    private final Counter askedAgain;
    private final boolean degradedMode;

    /**
     * @param degradedMode true (the product) parks orders when inventory is unavailable; false
     *     rejects them instead, undoing by key a reservation that may have been made
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
        this.askedAgain = Counter.builder("saga.reservations.asked.again")
                .description("Reservations cut short by the product's own slowness, asked again under their key")
                .register(registry);
    }

    @Override
    public StepResult<OrderData> reserve(OrderData order, StepContext context) {
        try {
            return reserved(order, ask(order, Deadline.ofEpochMillis(context.deadlineEpochMillis())));
        } catch (ParticipantRefused e) {
            return refused(order, e);
        } catch (DependencyUnavailable e) {
            if (!(e.cutShort() && e.mayHaveTakenEffect() && !stack.failingLately())) {
                return unavailable(order, e);
            }
            // Sent, then cut short by the product's own slowness, inventory not known to fail: the
            // outcome is unknown for no fault of inventory's. Asked again under the same key with a
            // whole attempt of its own, inventory says what it holds (docs/decisions/0021).
            askedAgain.increment();
            log.info("order {}: reservation cut short by the product's own slowness ({}); asking again under its key",
                    order.orderId(), describe(e));
            try {
                return reserved(order, askAgain(order));
            } catch (ParticipantRefused again) {
                return refused(order, again);
            } catch (DependencyUnavailable again) {
                // Still unknown: a second call that did nothing (not sent, refused at the door) takes
                // nothing from the first's doubt, so the order is never withdrawn on it.
                return unavailable(order, again.mayHaveTakenEffect() ? again : e);
            }
        }
    }

    private InventoryPort.Reservation ask(OrderData order, Deadline deadline) {
        return stack.call(deadline, timeout -> inventory.reserve(order.reserveKey(), order.orderId(), order.lines(),
                timeout, deadline.epochMillis()));
    }

    /**
     * The second ask of a reservation cut short. The order is stored and its reservation in doubt, so
     * unlike a fresh submission (which waits the bulkhead's short wait, then is refused with nothing
     * stored) it waits for a bulkhead place as long as a whole attempt, then gets a whole attempt of
     * its own: on a product short of CPU the bulkhead is full of calls that do end, and giving up on
     * a place would park a healthy order.
     */
    private InventoryPort.Reservation askAgain(OrderData order) {
        Duration attempt = stack.config().timeout().attemptTimeout();
        Deadline placeBy = Deadline.after(attempt.plus(stack.config().timeout().minimumUsefulBudget()));
        Deadline callBy = Deadline.after(attempt.multipliedBy(2));
        try (Permit place = stack.holdPlace(placeBy, false, Priority.HIGH, reason -> { }).orElseGet(Permit::none)) {
            return ask(order, callBy);
        }
    }

    private static StepResult<OrderData> reserved(OrderData order, InventoryPort.Reservation answer) {
        return answer == InventoryPort.Reservation.RESERVED ? StepResult.done(order)
                : StepResult.refused(OrderReason.OUT_OF_STOCK.because("inventory holds too little stock"));
    }

    private static StepResult<OrderData> refused(OrderData order, ParticipantRefused e) {
        log.warn("order {} refused: inventory refused its reservation for good ({})", order.orderId(), e.getMessage());
        return StepResult.refused(OrderReason.ORDER_REFUSED.because(e.getMessage()));
    }

    private StepResult<OrderData> unavailable(OrderData order, DependencyUnavailable e) {
        Reason reason = OrderReason.INVENTORY_UNAVAILABLE.because(describe(e));
        if (!degradedMode) {
            log.warn("order {} refused: inventory {} ({}) and degraded mode is off{}", order.orderId(),
                    e.reason(), cause(e), e.mayHaveTakenEffect() ? "; releasing what it may have reserved" : "");
            return e.mayHaveTakenEffect() ? StepResult.abandoned(reason) : StepResult.refused(reason);
        }
        if (ourOwnWithoutEffect(e) && !stack.failingLately()) {
            // Our own want of capacity, inventory not known to fail and nothing reserved: a fresh
            // submission is withdrawn (503, nothing stored), a resumed one parks (docs/decisions/0021).
            log.info("order {}: nothing reserved for the product's own lack of time or capacity ({})",
                    order.orderId(), describe(e));
            return StepResult.untried(OrderSaga.INVENTORY, reason);
        }
        reserveFallbacks.increment();
        log.warn("order {} pending confirmation: inventory {} ({})", order.orderId(), e.reason(), cause(e));
        return e.mayHaveTakenEffect() ? StepResult.unknown(OrderSaga.INVENTORY, reason)
                : StepResult.unavailable(OrderSaga.INVENTORY, reason);
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
        } catch (ParticipantRefused e) {
            // The saga makes this an incident: retrying cannot help, skipping would leave stock held.
            return StepResult.refused(OrderReason.ORDER_REFUSED.because("inventory refused the release: "
                    + e.getMessage()));
        } catch (DependencyUnavailable e) {
            releaseFallbacks.increment();
            log.warn("order {} release parked: inventory {} ({})", order.orderId(), e.reason(), cause(e));
            Reason reason = OrderReason.INVENTORY_UNAVAILABLE.because(describe(e));
            return e.mayHaveTakenEffect() ? StepResult.unknown(OrderSaga.INVENTORY, reason)
                    : StepResult.unavailable(OrderSaga.INVENTORY, reason);
        }
    }

    /**
     * Not sent for want of capacity, or sent with too little time and answered that the deadline
     * passed before inventory started: either way nothing was reserved, and the time was ours.
     */
    private static boolean ourOwnWithoutEffect(DependencyUnavailable e) {
        return e.reason() == DependencyUnavailable.Reason.BULKHEAD_FULL
                || e.reason() == DependencyUnavailable.Reason.DEADLINE_TOO_SHORT
                || e.cutShort() && !e.mayHaveTakenEffect();
    }

    private static String describe(DependencyUnavailable e) {
        return e.reason() + (e.mayHaveTakenEffect() ? " (outcome unknown)" : "") + ": " + cause(e);
    }

    private static String cause(Throwable e) {
        Throwable c = e.getCause() != null ? e.getCause() : e;
        return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    }
}
