package org.sagas.orchestrator.ordering;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.sagas.orchestrator.resilience.Deadline;
import org.sagas.orchestrator.resilience.DependencyUnavailable;
import org.sagas.orchestrator.resilience.ParticipantRefused;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.saga.Reason;
import org.sagas.orchestrator.saga.StepContext;
import org.sagas.orchestrator.saga.StepResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The fraud screen through the fraud service's own resilience stack, each outcome mapped to its
 * {@link StepResult} type. A refusal (the service's verdict, or a request it refuses for good) is
 * an answer: the order is cancelled, its stock released, nothing charged. A failed or unreachable
 * service parks the order on {@link OrderSaga#FRAUD} — degraded mode, as for inventory — counted
 * in {@code saga_fallback_total{operation="screen"}} and logged with the order and the cause; it
 * is resumed, paced, when the fraud service's breaker closes. A screening changes nothing at the
 * service, so an attempt whose outcome is unknown is simply made again. Thread-safe.
 */
public final class ResilientFraudScreen implements FraudScreen {
    private static final Logger log = LoggerFactory.getLogger(ResilientFraudScreen.class);

    private final FraudPort fraud;
    private final ResilientDependency stack;
    private final Counter fallbacks;
    private final boolean degradedMode;

    /**
     * @param degradedMode true (the product) parks orders when the fraud service is unavailable;
     *     false cancels them instead (their stock released)
     */
    public ResilientFraudScreen(FraudPort fraud, ResilientDependency stack, MeterRegistry registry,
            boolean degradedMode) {
        this.fraud = fraud;
        this.stack = stack;
        this.degradedMode = degradedMode;
        this.fallbacks = Counter.builder("saga.fallback").tag("operation", "screen")
                .description("Calls that could not be made or failed transiently and were parked").register(registry);
    }

    @Override
    public StepResult<OrderData> screen(OrderData order, StepContext context) {
        try {
            FraudPort.Screening answer = stack.call(Deadline.ofEpochMillis(context.deadlineEpochMillis()),
                    timeout -> fraud.screen(OrderKeys.screen(order.orderId()), order, timeout,
                            context.deadlineEpochMillis()));
            if (answer.verdict() == FraudPort.Verdict.CLEARED) {
                return StepResult.done(order);
            }
            log.info("order {} refused by the fraud screen ({})", order.orderId(), answer.rule());
            return StepResult.refused(OrderReason.FRAUD_REFUSED.because(answer.rule()));
        } catch (ParticipantRefused e) {
            log.warn("order {} refused: the fraud service refused its screening for good ({})", order.orderId(),
                    e.getMessage());
            return StepResult.refused(OrderReason.ORDER_REFUSED.because(e.getMessage()));
        } catch (DependencyUnavailable e) {
            Reason reason = OrderReason.FRAUD_UNAVAILABLE.because(e.reason() + ": " + cause(e));
            if (!degradedMode) {
                log.warn("order {} cancelled: fraud service {} ({}) and degraded mode is off", order.orderId(),
                        e.reason(), cause(e));
                return StepResult.refused(reason);
            }
            fallbacks.increment();
            log.warn("order {} pending confirmation: fraud service {} ({})", order.orderId(), e.reason(), cause(e));
            // Screening has no effect at the service: a maybe-effective attempt is as good as none.
            return StepResult.unavailable(OrderSaga.FRAUD, reason);
        }
    }

    private static String cause(Throwable e) {
        Throwable c = e.getCause() != null ? e.getCause() : e;
        return c.getMessage() != null ? c.getMessage() : c.getClass().getSimpleName();
    }
}
