package org.sagas.orchestrator.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.sagas.orchestrator.ordering.OrderMessages.CustomerNotice;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaDecisions;
import org.sagas.orchestrator.saga.SagaDefinition;
import org.sagas.orchestrator.saga.SagaInstance;
import org.sagas.orchestrator.saga.SagaMigration;
import org.sagas.orchestrator.saga.SagaVersion;
import org.sagas.orchestrator.saga.SagaStatus;
import org.sagas.orchestrator.saga.SagaStep;
import org.sagas.orchestrator.saga.SagaTimings;
import org.sagas.orchestrator.saga.StepResult;
import org.sagas.orchestrator.saga.Transition;

/**
 * The decisions of the orders saga's two versions (docs/design.md, "A second version of a saga"):
 * version 2 screens for fraud between the reservation and the charge, and tells a declined payment
 * in a notice of its own; version 1 stays as it was. Pure: no database, no participant.
 */
class OrderSagaVersionsTest {
    private static final InventoryActions INVENTORY = new InventoryActions() {
        @Override
        public StepResult<OrderData> reserve(OrderData order, org.sagas.orchestrator.saga.StepContext context) {
            return StepResult.done(order);
        }

        @Override
        public StepResult<OrderData> release(OrderData order, org.sagas.orchestrator.saga.StepContext context) {
            return StepResult.done(order);
        }
    };
    private static final FraudScreen CLEARS = (order, context) -> StepResult.done(order);

    private final OrderSaga v1 = new OrderSaga(INVENTORY, Duration.ofSeconds(30));
    private final OrderSaga v2 = OrderSaga.v2(INVENTORY, CLEARS, Duration.ofSeconds(30));
    private final SagaTimings timings = new SagaTimings(Duration.ofSeconds(30), Duration.ofSeconds(5),
            Duration.ofMinutes(15));
    private final Instant now = Instant.parse("2026-12-04T03:00:00Z");
    private final OrderData order = new OrderData(UUID.randomUUID(), "c-1", "EUR", 2500,
            List.of(new OrderLine("SKU-1", 2, 1250)));

    @Test
    void shouldKeepVersionOneStepsAndAddTheFraudScreenBeforeTheChargeInVersionTwo() {
        assertThat(v1.version()).isEqualTo(1);
        assertThat(v1.steps()).extracting(SagaStep::name)
                .containsExactly(OrderSaga.RESERVE_STOCK, OrderSaga.CHARGE_PAYMENT);
        assertThat(v2.version()).isEqualTo(2);
        assertThat(v2.steps()).extracting(SagaStep::name)
                .containsExactly(OrderSaga.RESERVE_STOCK, OrderSaga.SCREEN_FRAUD, OrderSaga.CHARGE_PAYMENT);
        assertThat(v2.step(1)).isInstanceOfSatisfying(SagaStep.Sync.class,
                screen -> assertThat(screen.compensation()).as("a screening has nothing to undo").isNull());
    }

    @Test
    void shouldScreenThenChargeWhenVersionTwoReservedTheStock() {
        // Given a version 2 order whose stock was reserved
        Transition<OrderData> reserved = SagaDecisions.afterSyncStep(v2, begin(v2), StepResult.done(order), now,
                timings);

        // Then it is screened next, still pending, and nothing is charged yet
        assertThat(reserved.after().step()).isEqualTo(OrderSaga.SCREEN_FRAUD);
        assertThat(reserved.after().status()).isEqualTo(SagaStatus.RUNNING);
        assertThat(reserved.after().label()).isEqualTo(OrderStatus.PENDING_CONFIRMATION.name());
        assertThat(reserved.messages()).isEmpty();

        // When the screen clears it
        Transition<OrderData> cleared = SagaDecisions.afterSyncStep(v2, reserved.after(), StepResult.done(order),
                now, timings);

        // Then the charge is sent
        assertThat(cleared.after().step()).isEqualTo(OrderSaga.CHARGE_PAYMENT);
        assertThat(cleared.after().label()).isEqualTo(OrderStatus.AWAITING_PAYMENT.name());
        assertThat(cleared.messages()).extracting(OutgoingMessage::type)
                .containsExactly(OrderMessages.CHARGE_PAYMENT);
    }

    @Test
    void shouldReleaseTheStockAndCancelWithoutChargingWhenTheFraudScreenRefuses() {
        // Given a version 2 order at its fraud screen
        SagaInstance<OrderData> screening = atScreen();

        // When the screen refuses it
        Transition<OrderData> refused = SagaDecisions.afterSyncStep(v2, screening,
                StepResult.refused(OrderReason.FRAUD_REFUSED.because("amount_over_limit")), now, timings);

        // Then its reservation is released first, and no charge nor refund is sent
        assertThat(refused.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(refused.after().step()).isEqualTo(OrderSaga.RESERVE_STOCK);
        assertThat(refused.messages()).isEmpty();

        // And once released the order is cancelled, the customer told why by its code
        Transition<OrderData> released = SagaDecisions.afterSyncStep(v2, refused.after(), StepResult.done(order),
                now, timings);
        assertThat(released.after().status()).isEqualTo(SagaStatus.COMPENSATED);
        assertThat(released.after().label()).isEqualTo(OrderStatus.CANCELLED.name());
        assertThat(released.after().cause().code()).isEqualTo("fraud_refused");
        assertThat(notice(released)).satisfies(n -> {
            assertThat(n.kind()).isEqualTo("CANCELLED");
            assertThat(n.message()).contains("fraud_refused").doesNotContain("amount_over_limit");
        });
        assertThat(released.messages()).extracting(OutgoingMessage::type)
                .doesNotContain(OrderMessages.CHARGE_PAYMENT, OrderMessages.REFUND_PAYMENT);
    }

    @Test
    void shouldParkOnFraudAsPendingWhenTheFraudServiceIsUnavailable() {
        // When the fraud service cannot be reached
        Transition<OrderData> parked = SagaDecisions.afterSyncStep(v2, atScreen(),
                StepResult.unavailable(OrderSaga.FRAUD, OrderReason.FRAUD_UNAVAILABLE.because("breaker open")), now,
                timings);

        // Then the order waits, parked on the fraud service, still pending, its stock kept
        assertThat(parked.after().status()).isEqualTo(SagaStatus.PARKED);
        assertThat(parked.after().parkedOn()).isEqualTo(OrderSaga.FRAUD);
        assertThat(parked.after().step()).isEqualTo(OrderSaga.SCREEN_FRAUD);
        assertThat(parked.after().label()).isEqualTo(OrderStatus.PENDING_CONFIRMATION.name());
        assertThat(parked.after().expiresAt()).isEqualTo(now.plus(timings.parkedTtl()));
        assertThat(parked.messages()).isEmpty();
    }

    @Test
    void shouldTellADeclinedPaymentInANoticeOfItsOwnOnlyInVersionTwo() {
        // When a charge is declined on each version and the stock released
        CustomerNotice onV1 = notice(declinedAndReleased(v1, awaitingPayment(v1, begin(v1))));
        CustomerNotice onV2 = notice(declinedAndReleased(v2, awaitingPayment(v2, atScreen())));

        // Then version 1 says what it always said, version 2 names the payment
        assertThat(onV1.kind()).isEqualTo("CANCELLED");
        assertThat(onV1.message()).isEqualTo("Sorry, we could not complete your order (payment_declined)."
                + " Nothing was charged.");
        assertThat(onV2.kind()).isEqualTo("PAYMENT_DECLINED");
        assertThat(onV2.message()).contains("payment was declined", "items were put back", "Nothing was charged");
    }

    @Test
    void shouldMoveAPendingVersionOneOrderToVersionTwoReservationKeepingItsParking() {
        // Given a version 1 order parked on inventory
        SagaInstance<OrderData> parked = SagaDecisions.afterSyncStep(v1, begin(v1),
                StepResult.unavailable(OrderSaga.INVENTORY, OrderReason.INVENTORY_UNAVAILABLE.because("down")), now,
                timings).after();

        // When the mapping places it, and it is moved
        SagaMigration.Plan plan = new OrderSagaV1ToV2().plan(parked);
        Transition<OrderData> moved = SagaDecisions.migrate(v1, v2, parked, (SagaMigration.Plan.MoveTo) plan,
                "screen pending orders");

        // Then it waits at version 2's reservation as it waited before, one version later, and says so
        assertThat(plan).isEqualTo(new SagaMigration.Plan.MoveTo(0));
        assertThat(moved.after().definition()).isEqualTo(new SagaVersion(OrderSaga.TYPE, 2));
        assertThat(moved.after().step()).isEqualTo(OrderSaga.RESERVE_STOCK);
        assertThat(moved.after().status()).isEqualTo(SagaStatus.PARKED);
        assertThat(moved.after().parkedOn()).isEqualTo(OrderSaga.INVENTORY);
        assertThat(moved.after().label()).isEqualTo(OrderStatus.PENDING_CONFIRMATION.name());
        assertThat(moved.after().version()).isEqualTo(parked.version() + 1);
        assertThat(moved.reason().code()).isEqualTo("migrated");
        assertThat(moved.reason().detail()).contains("order v1 at RESERVE_STOCK -> order v2 at RESERVE_STOCK");
        assertThat(moved.messages()).isEmpty();
    }

    @Test
    void shouldRefuseToMoveAVersionOneOrderWhoseChargeWasSent() {
        // Given a version 1 order awaiting its payment
        SagaInstance<OrderData> awaiting = awaitingPayment(v1, begin(v1));

        // Then the mapping refuses it, saying why
        assertThat(new OrderSagaV1ToV2().plan(awaiting)).isInstanceOfSatisfying(SagaMigration.Plan.NoMapping.class,
                none -> assertThat(none.why()).contains("charge was sent"));
    }

    private SagaInstance<OrderData> begin(SagaDefinition<OrderData> def) {
        return SagaDecisions.beginTransition(def, order.orderId(), order, now, timings).after();
    }

    private SagaInstance<OrderData> atScreen() {
        return SagaDecisions.afterSyncStep(v2, begin(v2), StepResult.done(order), now, timings).after();
    }

    private SagaInstance<OrderData> awaitingPayment(OrderSaga def, SagaInstance<OrderData> beforeCharge) {
        SagaInstance<OrderData> after = SagaDecisions.afterSyncStep(def, beforeCharge, StepResult.done(order), now,
                timings).after();
        assertThat(after.status()).isEqualTo(SagaStatus.AWAITING_REPLY);
        return after;
    }

    private Transition<OrderData> declinedAndReleased(OrderSaga def, SagaInstance<OrderData> awaiting) {
        SagaStep.Async<OrderData> charge = (SagaStep.Async<OrderData>) def.step(awaiting.stepIndex());
        StepResult<OrderData> declined = charge.onReply().apply(order, new IncomingMessage(UUID.randomUUID(),
                OrderMessages.PAYMENT_DECLINED, order.orderId().toString(), awaiting.id().toString(),
                JsonNodeFactory.instance.objectNode().put("reason", "insufficient funds")));
        Transition<OrderData> compensating = SagaDecisions.afterReply(def, awaiting, declined, now, timings);
        return SagaDecisions.afterSyncStep(def, compensating.after(), StepResult.done(order), now, timings);
    }

    private static CustomerNotice notice(Transition<OrderData> t) {
        return t.messages().stream().filter(m -> m.payload() instanceof CustomerNotice)
                .map(m -> (CustomerNotice) m.payload()).findFirst().orElseThrow();
    }
}
