package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.sagas.app.GameDay.INVENTORY_DOWN;
import static org.sagas.app.GameDay.REALISTIC;
import static org.sagas.app.GameDay.SETTLE;
import static org.sagas.app.GameDay.WITHIN_BUDGET;
import static org.sagas.app.Submissions.sku;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.app.Submissions.Answer;
import org.sagas.testkit.RealInfrastructure;

/**
 * Degraded mode on the real product (docs/design.md, "Degraded mode"): orders parked as pending when
 * inventory cannot be reached, the pending cap, resuming oldest first, cancelling what can no
 * longer be served or waited too long, compensations resumed, deadlines shorter than inventory.
 *
 * <p>Each test sets the settings it needs; the order only keeps tests with the same settings
 * together so the product restarts less often.
 */
@RealInfrastructure
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DegradedModeIT extends GameDayLifecycle {
    /** Shorter than the 5 s park retry, so a parked order expires before it is tried again. */
    private static final Map<String, String> SHORT_TTL = GameDay.realisticWith("SAGA_PENDING_TTL_MS", "2000");

    @Test
    @Order(1)
    void shouldParkOrdersAsPendingConfirmationWithinTheBudgetWhenInventoryIsDown() {
        // Given realistic timeouts, stock, and an inventory that refuses every call
        product.ensure(REALISTIC);
        String sku = sku();
        product.stock(sku, 10);
        double fallbacksBefore = product.metrics().value("saga_fallback_total", "operation", "reserve");
        product.inventoryFaults(INVENTORY_DOWN);

        // When three orders are submitted under the API's own 500 ms budget
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            answers.add(Submissions.one(product::submitWithinApiBudget, TestProduct.order("c-park", sku, 1, 100)));
        }

        // Then each is accepted as pending, answered well inside the budget, and counted as a fallback
        for (Answer a : answers) {
            assertThat(a.status()).as("%s", a).isEqualTo(202);
            assertThat(a.orderStatus()).isEqualTo("PENDING_CONFIRMATION");
            assertThat(a.took()).as("%s", a).isLessThan(WITHIN_BUDGET);
            assertThat(a.response().headers().firstValue("Location")).hasValue("/orders/" + a.orderId());
            assertThat(product.status(a.orderId())).isEqualTo("PENDING_CONFIRMATION");
            assertThat(Invariants.reasons(product, a.orderId())).contains("inventory_unavailable")
                    .noneMatch(r -> r.contains("503")); // customers see the code, not the participant's text
            assertThat(product.reservations(a.orderId())).isEmpty();
        }
        assertThat(product.metrics().value("saga_fallback_total", "operation", "reserve") - fallbacksBefore)
                .isGreaterThanOrEqualTo(3);
        await("pending gauges").atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            Metrics m = product.metrics();
            assertThat(m.value("saga_orders", "status", "PENDING_CONFIRMATION")).isGreaterThanOrEqualTo(3);
            assertThat(m.value("saga_pending_oldest_age_seconds")).isPositive();
        });

        // When inventory comes back
        product.healthy();

        // Then every pending order is resumed and confirmed
        List<UUID> ids = Submissions.ids(answers);
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 3L));
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 7, 3);
    }

    @Test
    @Order(2)
    void shouldResumePendingOrdersOldestFirstAndCancelThoseLeftWithoutStock() {
        // Given four orders pending while inventory is down, for a SKU with four units
        product.ensure(REALISTIC);
        String sku = sku();
        product.stock(sku, 4);
        product.inventoryFaults(INVENTORY_DOWN);
        List<Answer> answers = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            answers.add(Submissions.one(product::submitWithinApiBudget, TestProduct.order("c-old-" + i, sku, 1, 100)));
        }
        assertThat(answers).allSatisfy(a -> assertThat(a.orderStatus()).as("%s", a).isEqualTo("PENDING_CONFIRMATION"));
        List<UUID> ids = Submissions.ids(answers);

        // When two units are sold elsewhere during the outage, and inventory comes back (before
        // the first retry, 5 s after parking, so every order is first tried against stock of 2)
        product.stock(sku, 2);
        product.healthy();

        // Then the two oldest get the stock, in order, and the two youngest are cancelled
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(ids.stream().map(product::status).toList())
                .containsExactly("CONFIRMED", "CONFIRMED", "CANCELLED", "CANCELLED");
        assertThat(GameDay.firstAt(product, ids.get(0), "AWAITING_PAYMENT"))
                .isBefore(GameDay.firstAt(product, ids.get(1), "AWAITING_PAYMENT"));
        List<UUID> cancelled = ids.subList(2, 4);
        for (UUID id : cancelled) {
            assertThat(Invariants.reasons(product, id)).contains("out_of_stock");
            assertThat(product.charges(id)).as("charges of %s", id).isEmpty();
        }
        assertThat(GameDay.noticeKinds(bootstrap, cancelled)).containsOnlyKeys(cancelled)
                .allSatisfy((id, kinds) -> assertThat(kinds).containsExactly("CANCELLED"));
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 0, 2);
    }

    @Test
    @Order(3)
    void shouldFinishACompensationThatCouldNotReachInventoryOnceInventoryReturns() {
        // Given an order holding stock whose payment will be declined, a second from now
        product.ensure(REALISTIC);
        String sku = sku();
        product.stock(sku, 5);
        double releaseFallbacksBefore = product.metrics().value("saga_fallback_total", "operation", "release");
        product.paymentFaults("{\"declineRate\":1.0,\"latencyMs\":1000}");
        Answer answer = Submissions.one(product::submit, TestProduct.order("c-comp", sku, 2, 100));
        assertThat(answer.orderStatus()).as("%s", answer).isEqualTo("AWAITING_PAYMENT");
        UUID id = answer.orderId();

        // When inventory goes down before the decline arrives
        product.inventoryFaults(INVENTORY_DOWN);

        // Then the saga waits, visibly, to release the stock it still holds
        product.awaitStatus(id, "COMPENSATING", Duration.ofSeconds(30));
        await("still compensating").during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(5))
                .until(() -> product.status(id).equals("COMPENSATING"));
        Invariants.assertStock(product, sku, 3, 2);
        assertThat(product.charges(id).findValuesAsText("status")).containsExactly("DECLINED");
        assertThat(product.metrics().value("saga_fallback_total", "operation", "release") - releaseFallbacksBefore)
                .isGreaterThanOrEqualTo(1);

        // When inventory comes back
        product.healthy();

        // Then the release is resumed, the stock is back and the order cancelled, nothing charged
        product.awaitStatus(id, "CANCELLED", SETTLE);
        Invariants.assertStock(product, sku, 5, 0);
        assertThat(product.reservations(id).findValuesAsText("status")).containsExactly("RELEASED");
        assertThat(product.charges(id).findValuesAsText("status")).containsExactly("DECLINED");
        assertThat(product.order(id).get("history").findValuesAsText("status"))
                .containsSubsequence("AWAITING_PAYMENT", "COMPENSATING", "CANCELLED");
        assertThat(GameDay.noticeKinds(bootstrap, List.of(id))).containsEntry(id, List.of("CANCELLED"));
        Invariants.check(product, List.of(id));
    }

    @Test
    @Order(4)
    void shouldParkAnOrderWhoseDeadlineIsShorterThanInventoryLatencyAndReserveItOnceOnResume() {
        // Given an inventory that takes a second to answer, when a client allows 400 ms,
        // then the order is parked, not failed, answered about when the client gave up
        String sku = sku();
        UUID id = parkedUnderDeadline(sku, 1000, 400, "c-deadline").orderId();
        // ... and the inventory, told the deadline, did nothing for the abandoned call, even after its latency
        await("nothing reserved for the abandoned call").during(Duration.ofMillis(1500)).atMost(Duration.ofSeconds(4))
                .until(() -> product.reservations(id).isEmpty());
        Invariants.assertStock(product, sku, 5, 0);

        // When inventory is fast again
        product.healthy();

        // Then the resumed saga reserves the stock exactly once and the order is confirmed
        product.awaitStatus(id, "CONFIRMED", SETTLE);
        assertThat(product.reservations(id)).hasSize(1);
        assertThat(product.reservations(id).get(0).get("status").asText()).isEqualTo("RESERVED");
        assertThat(product.reservations(id).get(0).get("key").asText()).isEqualTo(id + ":reserve");
        Invariants.assertStock(product, sku, 4, 1);
        Invariants.check(product, List.of(id));
    }

    @Test
    @Order(4)
    void shouldKeepTheEndOfTheBudgetForStoringTheAnswerInsteadOfWaitingOnInventory() {
        // Given an inventory that answers in 250 ms, and the default 100 ms kept for the answer, when a
        // client allows 300 ms (inventory would answer in time, but not with room to store it), then
        // the call was cut at 200 ms and the order parked, not answered late
        Answer answer = parkedUnderDeadline(sku(), 250, 300, "c-reserve");

        // ... and it is served once inventory is fast again
        product.healthy();
        product.awaitStatus(answer.orderId(), "CONFIRMED", SETTLE);
        Invariants.check(product, List.of(answer.orderId()));
    }

    @Test
    @Order(5)
    void shouldRefuseNewOrdersWith503AndStoreNothingWhenThePendingCapIsReached() {
        // Given a pending cap 3 above what earlier tests left pending, reached while inventory is down
        product.ensure(GameDay.REALISTIC);
        long left = GameDay.pendingOrders(product);
        int cap = (int) left + 3;
        product.ensure(GameDay.realisticWith("SAGA_PENDING_CAP", Integer.toString(cap)));
        String sku = sku();
        product.stock(sku, 10);
        product.inventoryFaults(INVENTORY_DOWN);
        List<Answer> pending = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            pending.add(Submissions.one(product::submitWithinApiBudget, TestProduct.order("c-cap", sku, 1, 100)));
        }
        assertThat(pending).allSatisfy(a -> assertThat(a.orderStatus()).as("%s", a).isEqualTo("PENDING_CONFIRMATION"));
        // The admission reads the pending count from a gauge refreshed every 500 ms
        await("pending gauge at the cap").atMost(Duration.ofSeconds(5)).until(
                () -> product.metrics().value("saga_orders", "status", "PENDING_CONFIRMATION") >= cap);
        long storedBefore = GameDay.storedOrders(product);

        // When one more order comes
        String body = TestProduct.order("c-cap-over", sku, 1, 100);
        Answer refused = Submissions.one(product::submitWithinApiBudget, body);

        // Then it is refused before any work: 503 with Retry-After, no order, no idempotency record
        assertThat(refused.status()).as("%s", refused).isEqualTo(503);
        assertThat(refused.response().headers().firstValue("Retry-After")).isPresent();
        assertThat(refused.response().headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(refused.orderId()).isNull();
        assertThat(GameDay.storedOrders(product)).isEqualTo(storedBefore);
        assertThat(GameDay.keyStored(product, refused.key())).isFalse();

        // When inventory comes back and the pending orders drain
        product.healthy();
        List<UUID> ids = new ArrayList<>(Submissions.ids(pending));
        Invariants.awaitSettled(product, ids, SETTLE);
        await("pending gauge below the cap").atMost(Duration.ofSeconds(5)).until(
                () -> product.metrics().value("saga_orders", "status", "PENDING_CONFIRMATION") < cap);

        // Then the refused client's retry, same key and body, is a new order like any other
        var retry = product.submitWithinApiBudget(refused.key(), body);
        assertThat(retry.statusCode()).as(retry.body()).isEqualTo(202);
        assertThat(retry.headers().firstValue("Idempotent-Replayed")).isEmpty();
        ids.add(TestProduct.orderId(retry));
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 4L));
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 6, 4);
    }

    @Test
    @Order(6)
    void shouldCancelAPendingOrderAsExpiredWhenItOutlivesItsTimeToLive() {
        // Given a pending time to live of 2 s and an order parked while inventory is down
        product.ensure(SHORT_TTL);
        String sku = sku();
        product.stock(sku, 5);
        product.inventoryFaults(INVENTORY_DOWN);
        Answer answer = Submissions.one(product::submitWithinApiBudget, TestProduct.order("c-ttl", sku, 1, 100));
        assertThat(answer.orderStatus()).as("%s", answer).isEqualTo("PENDING_CONFIRMATION");
        UUID id = answer.orderId();

        // When it has waited longer than its time to live (and inventory has come back, so whatever
        // the expiry has to undo at inventory can be undone)
        await("expired").atMost(Duration.ofSeconds(20)).until(() -> !product.status(id).equals("PENDING_CONFIRMATION"));
        product.healthy();

        // Then it is cancelled as expired, with a notice, nothing charged, nothing reserved
        product.awaitStatus(id, "CANCELLED", SETTLE);
        assertThat(Invariants.reasons(product, id)).contains("expired");
        assertThat(product.charges(id)).isEmpty();
        assertThat(GameDay.noticeKinds(bootstrap, List.of(id))).containsEntry(id, List.of("CANCELLED"));
        Invariants.check(product, List.of(id));
        Invariants.assertStock(product, sku, 5, 0);
    }

    @Test
    @Order(7)
    void shouldReleaseTheStockATimedOutReservationTookWhenItsPendingOrderExpires() {
        // Given a pending time to live of 2 s and an inventory slower (700 ms) than our 300 ms
        // attempts but faster than the client's deadline
        product.ensure(SHORT_TTL);
        String sku = sku();
        product.stock(sku, 5);
        product.inventoryFaults(GameDay.inventoryLatency(700));

        // When an order is submitted with 1.5 s to spare
        Answer answer = Submissions.one((key, body) -> product.submit(key, body, "X-Deadline",
                Long.toString(System.currentTimeMillis() + 1500)), TestProduct.order("c-ttl-slow", sku, 2, 100));

        // Then our attempts time out and the order is parked ...
        assertThat(answer.orderStatus()).as("%s", answer).isEqualTo("PENDING_CONFIRMATION");
        UUID id = answer.orderId();
        // ... while the inventory, with time left before the deadline, did reserve for it
        await("the timed-out attempt's reservation").atMost(Duration.ofSeconds(5))
                .until(() -> product.reservations(id).findValuesAsText("status").contains("RESERVED"));
        product.healthy();

        // When the order waits longer than its time to live, before its first retry
        // Then it is cancelled as expired, and the stock the timed-out attempt took is returned
        product.awaitStatus(id, "CANCELLED", SETTLE);
        assertThat(Invariants.reasons(product, id)).contains("expired");
        assertThat(product.charges(id)).isEmpty();
        Invariants.check(product, List.of(id));
        Invariants.assertStock(product, sku, 5, 0);
    }

    /**
     * With 5 units of {@code sku} in stock and inventory answering in {@code latencyMs}, submits
     * an order whose client allows {@code deadlineMs}, and checks it was parked in time.
     */
    private Answer parkedUnderDeadline(String sku, long latencyMs, long deadlineMs, String customer) {
        product.ensure(REALISTIC);
        product.stock(sku, 5);
        product.inventoryFaults(GameDay.inventoryLatency(latencyMs));
        Answer answer = Submissions.one((key, body) -> product.submit(key, body, "X-Deadline",
                Long.toString(System.currentTimeMillis() + deadlineMs)), TestProduct.order(customer, sku, 1, 100));
        assertThat(answer.status()).as("%s", answer).isEqualTo(202);
        assertThat(answer.orderStatus()).as("%s", answer).isEqualTo("PENDING_CONFIRMATION");
        assertThat(answer.took()).as("%s", answer).isLessThan(WITHIN_BUDGET);
        return answer;
    }
}
