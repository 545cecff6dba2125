package org.sagas.orchestrator.ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.saga.IncidentCause;
import org.sagas.orchestrator.saga.SagaTimings;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** PAYMENT_UNKNOWN always ends, on a real PostgreSQL with a scripted provider. */
@RealInfrastructure
class PaymentReconcilerIT {
    private static Jdbi jdbi;
    private OrdersTestbed bed;

    @BeforeAll
    static void schema(TestInfra infra) {
        Migrations.apply(infra.dataSource());
        jdbi = Jdbi.create(infra.dataSource(10));
    }

    @BeforeEach
    void clean() {
        // Each test starts with no unknown payments left by another.
        jdbi.useHandle(h -> h.execute("UPDATE orders SET status = 'CANCELLED' WHERE status = 'PAYMENT_UNKNOWN'"));
        bed = new OrdersTestbed(jdbi, true, Duration.ofMillis(1), Duration.ofSeconds(1), new SagaTimings(
                Duration.ofSeconds(30), Duration.ofMillis(50), Duration.ofMinutes(15)));
    }

    @Test
    void shouldReachASettleableOrderBehind150ItCannotSettle() {
        // Given 151 orders whose payment answer was lost; the provider knows only one of them, the
        // last the reconciler would come to (highest id), and has never seen the others' charges
        List<UUID> ids = unknownPayments(151);
        UUID settleable = ids.stream().max(Comparator.comparing(UUID::toString)).orElseThrow();
        bed.provider.ledger.put(OrderKeys.charge(settleable), PaymentProvider.Charge.CAPTURED);
        PaymentReconciler reconciler = reconciler(Duration.ofHours(1), 3);

        // When one pass runs
        PaymentReconciler.Pass pass = reconciler.pass();

        // Then it looked at every one and settled the one it could; the others wait, none resent yet
        assertThat(pass.lookedUp()).isEqualTo(151);
        assertThat(pass.settled()).isEqualTo(1);
        assertThat(pass.resent()).isZero();
        assertThat(bed.orders.status(settleable)).hasValue(OrderStatus.CONFIRMED);
        assertThat(ids.stream().filter(id -> !id.equals(settleable)).map(id -> bed.orders.status(id).orElseThrow()))
                .containsOnly(OrderStatus.PAYMENT_UNKNOWN);
    }

    @Test
    void shouldSettleADeclineFromTheProvidersLedger() {
        UUID id = unknownPayments(1).get(0);
        bed.provider.ledger.put(OrderKeys.charge(id), PaymentProvider.Charge.DECLINED);

        reconciler(Duration.ofHours(1), 3).pass();

        assertThat(bed.orders.status(id)).hasValue(OrderStatus.CANCELLED);
        assertThat(bed.inventory.releasedKeys).contains(id + ":reserve");
        assertThat(bed.orders.find(id).orElseThrow().history()).extracting(OrderStore.HistoryEntry::reason)
                .endsWith("payment_declined", "payment_declined");
    }

    @Test
    void shouldResendALostChargeUnderTheSameKeyABoundedNumberOfTimesThenRaiseAnIncident() {
        // Given an order whose charge the provider never saw, and whose command is not queued any more
        UUID id = unknownPayments(1).get(0);
        PaymentReconciler reconciler = reconciler(Duration.ZERO, 2);

        // When passes run, the published commands being lost each time
        List<PaymentReconciler.Pass> passes = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            passes.add(reconciler.pass());
            publishAndLose(id);
        }

        // Then the charge went out again twice, each time as the same command (same key), then the
        // order became the PAYMENT_UNRESOLVED incident, still PAYMENT_UNKNOWN, and is left alone
        assertThat(passes).extracting(PaymentReconciler.Pass::resent).containsExactly(1, 1, 0, 0);
        assertThat(passes).extracting(PaymentReconciler.Pass::givenUp).containsExactly(0, 0, 1, 0);
        assertThat(passes.get(3).lookedUp()).isZero();
        assertThat(bed.incident(id)).isEqualTo("PAYMENT_UNRESOLVED");
        assertThat(bed.orders.status(id)).hasValue(OrderStatus.PAYMENT_UNKNOWN);
        assertThat(bed.reasonCodes(id)).containsSubsequence("step_timed_out", "command_resent", "command_resent",
                "payment_unresolved");
        assertThat(sentCharges).allSatisfy(payload -> assertThat(payload).contains(id + ":charge"));
        assertThat(sentCharges).hasSize(2);
    }

    @Test
    void shouldResendADeadLetteredChargeAtOnceAndClearItsIncident() {
        // Given an order whose charge command was dead-lettered a moment ago
        UUID id = unknownPayments(1).get(0);
        publishAndLose(id);
        bed.engine.raiseIncident(id, IncidentCause.COMMAND_DEAD_LETTERED, "provider down for 60 s");

        // When a pass runs (long before the charge would count as quiet)
        PaymentReconciler.Pass pass = reconciler(Duration.ofHours(1), 3).pass();

        // Then it is sent again, and the order is no longer an incident
        assertThat(pass.resent()).isEqualTo(1);
        assertThat(bed.incident(id)).isNull();
        assertThat(bed.outboxTypes(id)).containsExactly(OrderMessages.CHARGE_PAYMENT);
    }

    @Test
    void shouldRaiseAnIncidentWhenTheProviderRefusesTheLookUpAndWaitWhenItFails() {
        UUID id = unknownPayments(1).get(0);
        PaymentReconciler reconciler = reconciler(Duration.ZERO, 3);

        // A provider that fails: asked again next pass, nothing resent on a guess
        bed.provider.lookupFails = new org.sagas.orchestrator.resilience.TransientFailure("503");
        PaymentReconciler.Pass failing = reconciler.pass();
        // A provider that refuses the look-up for good: only an operator can settle it
        bed.provider.lookupFails = new org.sagas.orchestrator.resilience.ParticipantRefused("payment", "401");
        PaymentReconciler.Pass refused = reconciler.pass();

        assertThat(failing.resent()).isZero();
        assertThat(failing.givenUp()).isZero();
        assertThat(refused.givenUp()).isEqualTo(1);
        assertThat(bed.incident(id)).isEqualTo("PAYMENT_UNRESOLVED");
    }

    private final List<String> sentCharges = new ArrayList<>();

    /** As if the relay published the order's queued charge commands and they were then lost. */
    private void publishAndLose(UUID id) {
        sentCharges.addAll(jdbi.withHandle(h -> h.createQuery("DELETE FROM outbox WHERE aggregate_id = :id"
                + " AND message_type = 'ChargePayment' RETURNING payload").bind("id", id.toString())
                .mapTo(String.class).list()));
    }

    private PaymentReconciler reconciler(Duration resendAfter, int maxResends) {
        return new PaymentReconciler(bed.orders, bed.engine, bed.provider, resendAfter, maxResends);
    }

    /** {@code n} orders whose payment step timed out, their first charge command published. */
    private List<UUID> unknownPayments(int n) {
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            ids.add(bed.submit("k-" + UUID.randomUUID(), OrdersTestbed.request("SKU-R", 1)).orderId());
        }
        // Each step deadline is 1 ms away: time them out until every one has passed (a pass run within
        // that millisecond of the last submission finds nothing due yet)
        await().atMost(java.time.Duration.ofSeconds(10)).until(() -> {
            bed.engine.timeOutSteps(500);
            return ids.stream().allMatch(id -> bed.orders.status(id).equals(java.util.Optional.of(
                    OrderStatus.PAYMENT_UNKNOWN)));
        });
        jdbi.useHandle(h -> h.execute("DELETE FROM outbox WHERE message_type = 'ChargePayment'"));
        return ids;
    }
}
