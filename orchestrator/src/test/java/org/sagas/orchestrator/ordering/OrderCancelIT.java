package org.sagas.orchestrator.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaTimings;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * A customer's cancel on a real PostgreSQL (docs/design.md, "Cancelling an order"): it goes down the
 * engine's cancel path, a replay answers the same, a refusal writes nothing, and a payment reply
 * racing it has one winner, which the answer names.
 */
@RealInfrastructure
class OrderCancelIT {
    private static final OrderService.Caller OPEN = new OrderService.Caller(null, null);
    private static Jdbi jdbi;
    private static final SagaTimings QUICK = new SagaTimings(Duration.ofMillis(300), Duration.ofMillis(50),
            Duration.ofMinutes(15), 2);

    @BeforeAll
    static void schema(TestInfra infra) {
        Migrations.apply(infra.dataSource());
        jdbi = Jdbi.create(infra.dataSource(10));
    }

    private static OrdersTestbed bed() {
        return new OrdersTestbed(jdbi, true, Duration.ofSeconds(30), Duration.ofMillis(500), QUICK);
    }

    @Test
    void shouldCancelAnOrderAwaitingPaymentReleasingItsStockAndRefundingALateChargeAndReplayTheAnswer() {
        // Given an order with its stock reserved and its charge on the way
        OrdersTestbed bed = bed();
        UUID id = bed.submit("k-" + UUID.randomUUID(), OrdersTestbed.request("SKU-C1", 1)).orderId();
        assertThat(bed.orders.status(id)).hasValue(OrderStatus.AWAITING_PAYMENT);
        String key = "cancel-" + UUID.randomUUID();

        // When its customer cancels it, and sends the same request again
        CancelOutcome first = cancel(bed, OPEN, key, id);
        CancelOutcome again = cancel(bed, OPEN, key, id);

        // Then it ended cancelled with the customer's code, its stock released and a refund sent
        assertThat(first).isEqualTo(new CancelOutcome.Ended(id, OrderStatus.CANCELLED, false));
        assertThat(again).isEqualTo(new CancelOutcome.Ended(id, OrderStatus.CANCELLED, true));
        assertThat(bed.orders.status(id)).hasValue(OrderStatus.CANCELLED);
        assertThat(bed.inventory.held).isEmpty();
        assertThat(bed.inventory.releasedKeys).containsExactly(id + ":reserve");
        assertThat(bed.outboxTypes(id)).containsSubsequence("ChargePayment", "RefundPayment", "CustomerNotice");
        assertThat(bed.reasonCodes(id)).contains("cancelled_by_customer");
        // And a capture that arrives afterwards changes nothing (the refund settles it)
        assertThat(bed.engine.handleReplies(List.of(new SagaEngine.Reply(captured(id), id)))).containsExactly(
                SagaEngine.ReplyOutcome.NOT_AWAITED);
        assertThat(bed.orders.status(id)).hasValue(OrderStatus.CANCELLED);
    }

    @Test
    void shouldRefuseAConfirmedOrderAnotherCustomersOrderAndAReusedKeyWritingNothing() {
        // Given a confirmed order of customer c-1, and an order awaiting payment
        OrdersTestbed bed = bed();
        UUID confirmed = bed.submit("k-" + UUID.randomUUID(), OrdersTestbed.request("SKU-C2", 1)).orderId();
        bed.engine.handleReplies(List.of(new SagaEngine.Reply(captured(confirmed), confirmed)));
        assertThat(bed.orders.status(confirmed)).hasValue(OrderStatus.CONFIRMED);
        UUID waiting = bed.submit("k-" + UUID.randomUUID(), OrdersTestbed.request("SKU-C2", 1)).orderId();
        List<String> confirmedHistory = bed.reasonCodes(confirmed);
        List<String> waitingHistory = bed.reasonCodes(waiting);
        String key = "cancel-" + UUID.randomUUID();

        // When the confirmed one is cancelled, the waiting one by a client of other customers, and the
        // key of a submission is used for a cancel
        CancelOutcome late = cancel(bed, OPEN, key, confirmed);
        CancelOutcome stranger = cancel(bed, new OrderService.Caller("other-key", Set.of("c-other")), key, waiting);
        String orderKey = "k-" + UUID.randomUUID();
        bed.submit(orderKey, OrdersTestbed.request("SKU-C2", 1));
        CancelOutcome reused = cancel(bed, OPEN, orderKey, waiting);

        // Then each is refused by its type and nothing changed, no key stored for the refusals
        assertThat(late).isEqualTo(new CancelOutcome.Confirmed(confirmed));
        assertThat(stranger).isEqualTo(new CancelOutcome.NotFound(waiting));
        assertThat(reused).isEqualTo(new CancelOutcome.KeyReused(waiting));
        assertThat(bed.reasonCodes(confirmed)).isEqualTo(confirmedHistory);
        assertThat(bed.reasonCodes(waiting)).isEqualTo(waitingHistory);
        assertThat(bed.orders.status(waiting)).hasValue(OrderStatus.AWAITING_PAYMENT);
        assertThat(bed.keys.find(OrdersTestbed.scopeOf("c-1"), key)).isEmpty();
        // And the same key still cancels the waiting order afterwards
        assertThat(cancel(bed, OPEN, key, waiting)).isEqualTo(new CancelOutcome.Ended(waiting, OrderStatus.CANCELLED,
                false));
    }

    @Test
    void shouldGiveEitherTheCancelOrTheRacingPaymentReplyTheOrderAndAnswerWhichOne() throws Exception {
        // Given orders awaiting payment
        OrdersTestbed bed = bed();
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            ids.add(bed.submit("k-" + UUID.randomUUID(), OrdersTestbed.request("SKU-C3", 1)).orderId());
        }
        int cancelWon = 0;
        int replyWon = 0;
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < ids.size(); i++) {
                UUID id = ids.get(i);
                // When the capture and the customer's cancel arrive together: at the same moment for a
                // third of the orders, one of them a few milliseconds ahead for the others (so each wins)
                long replyLag = i % 3 == 0 ? 50 : 0;
                long cancelLag = i % 3 == 1 ? 50 : 0;
                CyclicBarrier together = new CyclicBarrier(2);
                CompletableFuture<SagaEngine.ReplyOutcome> reply = CompletableFuture.supplyAsync(() -> {
                    await(together, replyLag);
                    return bed.engine.handleReplies(List.of(new SagaEngine.Reply(captured(id), id))).get(0);
                }, pool);
                CompletableFuture<CancelOutcome> cancel = CompletableFuture.supplyAsync(() -> {
                    await(together, cancelLag);
                    return cancel(bed, OPEN, "cancel-" + id, id);
                }, pool);

                // Then exactly one of them moved the order, and the cancel's answer says which
                CancelOutcome answer = cancel.get();
                if (reply.get() == SagaEngine.ReplyOutcome.APPLIED) {
                    replyWon++;
                    assertThat(answer).as("order %s", id).isEqualTo(new CancelOutcome.Confirmed(id));
                    assertThat(bed.orders.status(id)).hasValue(OrderStatus.CONFIRMED);
                    assertThat(bed.outboxTypes(id)).doesNotContain("RefundPayment");
                } else {
                    cancelWon++;
                    assertThat(reply.get()).isEqualTo(SagaEngine.ReplyOutcome.NOT_AWAITED);
                    assertThat(answer).as("order %s", id).isEqualTo(new CancelOutcome.Ended(id, OrderStatus.CANCELLED,
                            false));
                    assertThat(bed.orders.status(id)).hasValue(OrderStatus.CANCELLED);
                    assertThat(bed.outboxTypes(id)).contains("RefundPayment");
                }
            }
        } finally {
            pool.shutdownNow();
        }
        // And both sides won some, a confirmed order alone holding its stock
        assertThat(cancelWon).as("cancels that won").isPositive();
        assertThat(replyWon).as("replies that won").isPositive();
        assertThat(bed.inventory.held.keySet()).allSatisfy(k -> assertThat(bed.orders.status(
                UUID.fromString(k.substring(0, 36)))).hasValue(OrderStatus.CONFIRMED));
    }

    private static CancelOutcome cancel(OrdersTestbed bed, OrderService.Caller caller, String key, UUID id) {
        return bed.service.cancel(caller, key, id, System.currentTimeMillis() + 2_000);
    }

    private static IncomingMessage captured(UUID id) {
        return new IncomingMessage(UUID.randomUUID(), OrderMessages.PAYMENT_CAPTURED, id.toString(), id.toString(),
                Json.mapper().createObjectNode().put("orderId", id.toString()).put("idempotencyKey",
                        OrderKeys.charge(id)));
    }

    /** Waits for the other side, then {@code lagMillis} more (a head start for the other side). */
    private static void await(CyclicBarrier barrier, long lagMillis) {
        try {
            barrier.await();
            if (lagMillis > 0) {
                Thread.sleep(lagMillis); // a head start for the other side, not a wait for it
            }
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
