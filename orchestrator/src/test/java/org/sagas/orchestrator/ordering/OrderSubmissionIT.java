package org.sagas.orchestrator.ordering;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.resilience.ParticipantRefused;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaTimings;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Submissions whose participants refuse, fail or die mid-flight, on a real PostgreSQL: every one ends in a status the answer allowed, with a typed reason.
 */
@RealInfrastructure
class OrderSubmissionIT {
    private static Jdbi jdbi;
    private static final SagaTimings QUICK = new SagaTimings(Duration.ofMillis(300), Duration.ofMillis(50),
            Duration.ofMinutes(15), 2);

    @BeforeAll
    static void schema(TestInfra infra) {
        Migrations.apply(infra.dataSource());
        jdbi = Jdbi.create(infra.dataSource(10));
    }

    private OrdersTestbed bed(boolean degradedMode) {
        return new OrdersTestbed(jdbi, degradedMode, Duration.ofSeconds(30), Duration.ofMillis(500), QUICK);
    }

    @Test
    void shouldRejectARefusedReservationWith422AndAStableCodeAndAnswerTheSameOnReplay() {
        // Given an inventory that refuses the reservation for good (it answered 400)
        OrdersTestbed bed = bed(true);
        bed.inventory.reserve = () -> {
            throw new ParticipantRefused("inventory", "inventory POST /reservations answered 400: sku too long");
        };
        String key = "k-" + UUID.randomUUID();

        // When the order is submitted, and again with the same key
        SubmitResult first = bed.submit(key, OrdersTestbed.request("SKU-1", 1));
        SubmitResult again = bed.submit(key, OrdersTestbed.request("SKU-1", 1));

        // Then it is refused for its stable reason (the edge's 422, never a 5xx), the participant's text
        // nowhere in the outcome; the replay answers the same
        assertThat(first.outcome()).isEqualTo(new SubmitOutcome.Refused(first.orderId(), OrderReason.ORDER_REFUSED));
        assertThat(again.outcome()).isEqualTo(first.outcome());
        assertThat(again.replayed()).isTrue();
        // (Nothing was stored with the key: the replay read the order's resolving transition back, ADR 0019.)
        assertThat(bed.keys.find(OrdersTestbed.scopeOf("c-1"), key)).hasValueSatisfying(e -> assertThat(e.completed()).isFalse());
        // And the order is REJECTED, asked once, nothing to undo, no loop, the code in its history
        UUID id = first.orderId();
        assertThat(bed.orders.status(id)).hasValue(OrderStatus.REJECTED);
        assertThat(bed.inventory.reserveKeys).containsExactly(id + ":reserve");
        assertThat(bed.inventory.releasedKeys).isEmpty();
        assertThat(bed.engine.runDue(100, Set.of(), null, 1000)).isZero();
        assertThat(bed.orders.find(id).orElseThrow().history()).extracting(OrderStore.HistoryEntry::reason)
                .containsExactly("started", "order_refused");
        assertThat(bed.outboxTypes(id)).containsExactly("CustomerNotice");
        // And each status it had is an event, in the transitions' transactions
        // (the first one tells how the submission resolved: the start is no event of its own, ADR 0019)
        assertThat(bed.statusEvents(id)).containsExactly("REJECTED");
    }

    @Test
    void shouldWithdrawASubmissionWhoseReservationCouldNotBeSentAndStoreNothing() {
        // Given a healthy inventory, and a client whose deadline leaves no time for the call (as when
        // the product's own queueing ate it)
        OrdersTestbed bed = bed(true);
        String customer = "c-withdrawn-" + UUID.randomUUID();
        OrderRequest request = new OrderRequest(customer, "EUR", java.util.List.of(new OrderLine("SKU-1", 1, 250)));
        String key = "k-" + UUID.randomUUID();

        // When it is submitted
        SubmitResult refused = bed.service.submit(OrderService.customerClient(customer), key, request,
                System.currentTimeMillis() + 2);

        // Then it is withdrawn (the edge's 503 overloaded), inventory was not called, and nothing is
        // kept: no order, no history, no idempotency key, no message
        assertThat(refused.outcome()).isInstanceOf(SubmitOutcome.Withdrawn.class);
        assertThat(refused.orderId()).isNull();
        assertThat(bed.inventory.reserveKeys).isEmpty();
        assertThat(bed.keys.find(OrdersTestbed.scopeOf(customer), key)).isEmpty();
        long stored = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM saga_instance WHERE"
                + " data->>'customerId' = :c").bind("c", customer).mapTo(Long.class).one());
        assertThat(stored).isZero();
        assertThat(bed.registry.counter("saga.submissions.withdrawn").count()).isEqualTo(1);
        // And the same key with time to spare is a new order like any other, reserved
        SubmitResult retried = bed.submit(key, request);
        assertThat(retried.accepted()).as(retried.toString()).isTrue();
        assertThat(retried.replayed()).isFalse();
        assertThat(bed.orders.status(retried.orderId())).hasValue(OrderStatus.AWAITING_PAYMENT);
        assertThat(bed.inventory.reserveKeys).containsExactly(retried.orderId() + ":reserve");
        assertThat(bed.reasonCodes(retried.orderId())).doesNotContain("inventory_unavailable");
    }

    @Test
    void shouldAnswerOutOfStockWithItsOwnCode() {
        OrdersTestbed bed = bed(true);
        bed.inventory.reserve = () -> InventoryPort.Reservation.OUT_OF_STOCK;

        SubmitResult answer = bed.submit("k-" + UUID.randomUUID(), OrdersTestbed.request("SKU-2", 1));

        assertThat(answer.outcome()).isEqualTo(new SubmitOutcome.Refused(answer.orderId(), OrderReason.OUT_OF_STOCK));
    }

    @Test
    void shouldGiveARetryTheRealOutcomeWhenTheFirstRequestDiedBeforeItsReservation() {
        // Given a request whose process died right after storing the order and claiming its key
        OrdersTestbed bed = bed(true);
        bed.inventory.reserve = () -> {
            throw new ParticipantRefused("inventory", "answered 422");
        };
        String key = "k-" + UUID.randomUUID();
        OrderRequest request = OrdersTestbed.request("SKU-3", 1);
        UUID id = UUID.randomUUID();
        OrderData data = new OrderData(id, "c-1", "EUR", request.totalCents(), request.lines());
        bed.engine.start(bed.saga, id, data, h -> bed.keys.claim(h, OrdersTestbed.scopeOf("c-1"), key, request.hash(), id, Instant.now()));

        // When the client retries at once: the outcome is not known yet, and it says so
        SubmitResult early = bed.submit(key, request);
        assertThat(early.outcome()).isEqualTo(new SubmitOutcome.KeyConflict(SubmitOutcome.KeyConflict.Kind.IN_PROGRESS));

        // And a saga-worker takes the order over after the lease and resolves it
        await().atMost(Duration.ofSeconds(10)).until(() -> bed.engine.runDue(10, Set.of(), null, 1000) > 0
                || bed.orders.status(id).orElseThrow().isTerminal());

        // Then a retry gets the order's real outcome, stored as the contract says, and the same again
        SubmitResult late = bed.submit(key, request);
        assertThat(bed.orders.status(id)).hasValue(OrderStatus.REJECTED);
        assertThat(late.outcome()).isEqualTo(new SubmitOutcome.Refused(id, OrderReason.ORDER_REFUSED));
        assertThat(bed.submit(key, request).outcome()).isEqualTo(late.outcome());
    }

    @Test
    void shouldAnswerPendingWhenTheReservationThrowsAndSettleTheOrderLater() {
        // Given a reservation that throws unexpectedly once, then works
        OrdersTestbed bed = bed(true);
        AtomicInteger calls = new AtomicInteger();
        bed.inventory.reserve = () -> {
            if (calls.incrementAndGet() == 1) {
                throw new IllegalStateException("adapter bug");
            }
            return InventoryPort.Reservation.RESERVED;
        };
        String key = "k-" + UUID.randomUUID();

        // When submitted
        SubmitResult answer = bed.submit(key, OrdersTestbed.request("SKU-4", 1));

        // Then the client hears it is accepted and pending (never a 500), and the order gets there
        UUID id = answer.orderId();
        assertThat(answer.outcome()).isEqualTo(new SubmitOutcome.Accepted(id, OrderStatus.PENDING_CONFIRMATION));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            bed.engine.runDue(10, Set.of(), null, 1000);
            return bed.orders.status(id).orElseThrow() == OrderStatus.AWAITING_PAYMENT;
        });
        assertThat(bed.reasonCodes(id)).containsExactly("started", "step_failed", "awaiting_reply");
        // Its events: how the submission resolved (pending), then the change; the start is none of its own
        assertThat(bed.statusEvents(id)).containsExactly("PENDING_CONFIRMATION", "AWAITING_PAYMENT");
        // one outbox row per transition: the charge command and its status event share one (ADR 0019)
        assertThat(bed.outboxTypes(id)).containsExactly("ChargePayment");
        assertThat(bed.outboxRows(id)).isEqualTo(2);
        SubmitResult replay = bed.submit(key, OrdersTestbed.request("SKU-4", 1));
        assertThat(replay.outcome()).isEqualTo(answer.outcome());
        assertThat(replay.replayed()).isTrue();
    }

    @Test
    void shouldReleaseAReservationThatMayHaveBeenMadeBeforeRejectingWhenDegradedModeIsOff() {
        // Given degraded mode off and an inventory that reserves but answers after the timeout
        OrdersTestbed bed = bed(false);
        bed.inventory.latencyMillis = 800;
        String key = "k-" + UUID.randomUUID();

        // When an order is submitted
        SubmitResult answer = bed.submit(key, OrdersTestbed.request("SKU-5", 1));

        // Then the client is told inventory is unavailable, and the reservation is released by its
        // key before the order is REJECTED: nothing stays held
        UUID id = answer.orderId();
        assertThat(answer.outcome()).isEqualTo(new SubmitOutcome.Refused(id, OrderReason.INVENTORY_UNAVAILABLE));
        await().atMost(Duration.ofSeconds(10)).until(() -> {
            bed.engine.runDue(10, Set.of(), null, 1000);
            return bed.orders.status(id).orElseThrow() == OrderStatus.REJECTED;
        });
        assertThat(bed.inventory.releasedKeys).contains(id + ":reserve");
        assertThat(bed.inventory.held).doesNotContainKey(id + ":reserve");
        assertThat(bed.reasonCodes(id)).startsWith("started", "inventory_unavailable").endsWith("inventory_unavailable");
        assertThat(bed.submit(key, OrdersTestbed.request("SKU-5", 1)).outcome()).isEqualTo(answer.outcome());
    }

    @Test
    void shouldMakeARefusedReleaseAnIncidentWithATruthfulStatus() {
        // Given an order waiting for its payment, and an inventory that refuses releases for good
        OrdersTestbed bed = bed(true);
        SubmitResult answer = bed.submit("k-" + UUID.randomUUID(), OrdersTestbed.request("SKU-6", 2));
        UUID id = answer.orderId();
        bed.inventory.release = () -> {
            throw new ParticipantRefused("inventory", "inventory POST /reservations/x/release answered 400");
        };

        // When the payment is declined and the stock must be released
        var body = Json.mapper().createObjectNode().put("orderId", id.toString()).put("reason", "declined")
                .put("code", "payment_declined");
        bed.engine.handleReply("test", new IncomingMessage(UUID.randomUUID(), OrderMessages.PAYMENT_DECLINED,
                id.toString(), id.toString(), body), id);

        // Then the order stays COMPENSATING (true: its stock is still held) as a typed incident, and
        // nothing tries the release again by itself
        assertThat(bed.orders.status(id)).hasValue(OrderStatus.COMPENSATING);
        assertThat(bed.incident(id)).isEqualTo("PARTICIPANT_REFUSED");
        assertThat(bed.engine.runDue(100, Set.of(), null, 1000)).isZero();
        assertThat(bed.orders.find(id).orElseThrow().history()).extracting(OrderStore.HistoryEntry::reason)
                .containsExactly("started", "awaiting_reply", "payment_declined", "participant_refused")
                .noneMatch(r -> r.contains("400"));
    }
}
