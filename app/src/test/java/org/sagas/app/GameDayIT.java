package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sagas.app.GameDay.INVENTORY_DOWN;
import static org.sagas.app.GameDay.REALISTIC;
import static org.sagas.app.GameDay.SETTLE;
import static org.sagas.app.GameDay.WITHIN_BUDGET;
import static org.sagas.app.Submissions.sku;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.app.Submissions.Answer;
import org.sagas.testkit.RealInfrastructure;

/**
 * Game days on the real stack: the product with realistic inventory settings
 * (300 ms attempts, the API's 500 ms budget, a breaker open 2 s), several clients at once, and an
 * inventory that goes down, goes slow, sells out or takes a compensation with it; then comes back.
 * Each game day ends with every accepted order settled and the invariants (docs/design.md, "Invariants").
 */
@RealInfrastructure
@RunsAlone
class GameDayIT extends GameDayLifecycle {
    private static final int WAVE = 40;
    private static final int MAX_WAVES = 3;

    @Override
    Map<String, String> settings() {
        return REALISTIC;
    }

    @Test
    void shouldConfirmEveryOrderTakenWhileInventoryWasDownOnceItIsBack() {
        // Given inventory down
        String sku = sku();
        product.stock(sku, 50);
        product.inventoryFaults(INVENTORY_DOWN);

        // When 30 orders come from 6 clients at once
        List<Answer> answers = Submissions.concurrently(6, bodies(30, "c-down", sku),
                product::submitWithinApiBudget);

        // Then all are accepted as pending, each well inside the budget
        assertAllPendingWithinBudget(answers);

        // When inventory comes back
        product.healthy();

        // Then every one is resumed and confirmed
        List<UUID> ids = Submissions.ids(answers);
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 30L));
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 20, 30);
    }

    @Test
    void shouldOpenTheBreakerStayWithinBudgetAndConfirmEveryOrderWhenInventoryTakesFourSeconds() {
        // Given an inventory answering after 4 s, far beyond our 300 ms attempts and 500 ms budget
        String sku = sku();
        product.stock(sku, WAVE * MAX_WAVES);
        double rejectionsBefore = rejections();
        product.inventoryFaults(GameDay.inventoryLatency(4000));

        // When waves of 40 orders come from 8 clients at once, until the breaker has opened: the
        // breaker judges a 10 s window, which may still hold the previous test's successes
        List<Answer> answers = new ArrayList<>();
        int highestState;
        try (CircuitWatch watch = CircuitWatch.inventory(product)) {
            do {
                answers.addAll(Submissions.concurrently(8, bodies(WAVE, "c-slow", sku),
                        product::submitWithinApiBudget));
            } while (watch.highestState() != 2 && rejections() == rejectionsBefore && answers.size() < WAVE * MAX_WAVES);
            highestState = watch.highestState();
        }

        // Then the breaker opened and turned calls away, and every order was still accepted in time
        double rejections = rejections() - rejectionsBefore;
        assertThat(highestState == 2 || rejections > 0)
                .as("breaker opened after %s orders (highest state %s, %s rejections)", answers.size(), highestState,
                        rejections).isTrue();
        assertAllPendingWithinBudget(answers);

        // When inventory is fast again
        product.healthy();

        // Then every order is confirmed, each with one reservation: the abandoned calls did nothing
        List<UUID> ids = Submissions.ids(answers);
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", (long) ids.size()));
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, WAVE * MAX_WAVES - ids.size(), ids.size());
    }

    private static double rejections() {
        return product.metrics().value("saga_circuit_rejections_total", "dependency", "inventory");
    }

    @Test
    void shouldCancelWithANoticeAndChargeNothingWhenStockSellsOutDuringTheOutage() {
        // Given orders for two SKUs pending while inventory is down
        String sellsOut = sku();
        String inStock = sku();
        product.stock(sellsOut, 5);
        product.stock(inStock, 5);
        product.inventoryFaults(INVENTORY_DOWN);
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            bodies.add(TestProduct.order("c-sold-out", sellsOut, 1, 100));
            bodies.add(TestProduct.order("c-in-stock", inStock, 1, 100));
        }
        List<Answer> answers = Submissions.concurrently(4, bodies, product::submitWithinApiBudget);
        assertAllPendingWithinBudget(answers);

        // When one SKU sells out elsewhere during the outage, and inventory comes back
        product.stock(sellsOut, 0);
        product.healthy();

        // Then its orders are cancelled with a notice and nothing charged; the others are confirmed
        List<UUID> ids = Submissions.ids(answers);
        Invariants.awaitSettled(product, ids, SETTLE);
        List<UUID> soldOut = new ArrayList<>();
        List<UUID> served = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            (i % 2 == 0 ? soldOut : served).add(ids.get(i));
        }
        assertThat(Invariants.statuses(product, soldOut)).containsExactly(Map.entry("CANCELLED", 5L));
        assertThat(Invariants.statuses(product, served)).containsExactly(Map.entry("CONFIRMED", 5L));
        for (UUID id : soldOut) {
            assertThat(product.charges(id)).as("charges of %s", id).isEmpty();
            assertThat(Invariants.reasons(product, id)).contains("out_of_stock");
        }
        Map<UUID, List<String>> notices = GameDay.noticeKinds(bootstrap, ids);
        soldOut.forEach(id -> assertThat(notices.get(id)).as("notices of %s", id).containsExactly("CANCELLED"));
        served.forEach(id -> assertThat(notices.get(id)).as("notices of %s", id).containsExactly("CONFIRMED"));
        Invariants.check(product, ids);
        Invariants.assertStock(product, sellsOut, 0, 0);
        Invariants.assertStock(product, inStock, 0, 5);
    }

    @Test
    void shouldFinishCompensationsAndPendingOrdersCaughtInTheOutageOnceInventoryIsBack() {
        // Given three orders holding stock whose payments will be declined in 1.5 s
        String sku = sku();
        product.stock(sku, 10);
        product.paymentFaults("{\"declineRate\":1.0,\"latencyMs\":1500}");
        List<Answer> declined = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            declined.add(Submissions.one(product::submit, TestProduct.order("c-declined", sku, 1, 100)));
        }
        assertThat(declined).allSatisfy(a -> assertThat(a.orderStatus()).as("%s", a).isEqualTo("AWAITING_PAYMENT"));

        // When inventory goes down before the declines arrive, and three more orders come meanwhile
        product.inventoryFaults(INVENTORY_DOWN);
        List<Answer> pending = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            pending.add(Submissions.one(product::submitWithinApiBudget, TestProduct.order("c-pending", sku, 1, 100)));
        }
        assertAllPendingWithinBudget(pending);

        // Then the declined orders wait, visibly, to give their stock back
        List<UUID> compensating = Submissions.ids(declined);
        for (UUID id : compensating) {
            product.awaitStatus(id, "COMPENSATING", Duration.ofSeconds(30));
        }
        Invariants.assertStock(product, sku, 7, 3);

        // When payments are accepted again and inventory comes back
        product.paymentFaults("{\"declineRate\":0.0,\"latencyMs\":0}");
        product.healthy();

        // Then the compensations finish (stock back, nothing charged) and the pending orders are confirmed
        List<UUID> ids = new ArrayList<>(compensating);
        ids.addAll(Submissions.ids(pending));
        Invariants.awaitSettled(product, ids, SETTLE);
        for (UUID id : compensating) {
            assertThat(product.status(id)).isEqualTo("CANCELLED");
            assertThat(product.charges(id).findValuesAsText("status")).containsExactly("DECLINED");
        }
        for (UUID id : Submissions.ids(pending)) {
            assertThat(product.status(id)).isEqualTo("CONFIRMED");
        }
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 7, 3);
    }

    @Test
    void shouldLoseNoPendingOrderWhenTheProductRestartsDuringTheOutage() {
        // Given ten orders pending while inventory is down
        String sku = sku();
        product.stock(sku, 20);
        product.inventoryFaults(INVENTORY_DOWN);
        List<String> bodies = bodies(10, "c-restart", sku);
        List<Answer> answers = Submissions.concurrently(4, bodies, product::submitWithinApiBudget);
        assertAllPendingWithinBudget(answers);
        List<UUID> ids = Submissions.ids(answers);

        // When every role stops and starts again, and inventory is still down (the sandbox
        // restarted with the rest and forgot its faults)
        product.restart();
        product.inventoryFaults(INVENTORY_DOWN);

        // Then every order is still there, and a client retrying its request gets the same order
        Set<String> alive = Set.of("PENDING_CONFIRMATION", "AWAITING_PAYMENT", "CONFIRMED");
        assertThat(ids).allSatisfy(id -> assertThat(product.status(id)).as("status of %s", id).isIn(alive));
        HttpResponse<String> replay = product.submitWithinApiBudget(answers.get(0).key(), bodies.get(0));
        assertThat(replay.statusCode()).isEqualTo(202);
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(TestProduct.orderId(replay)).isEqualTo(ids.get(0));

        // When inventory comes back
        product.healthy();

        // Then every order taken before the restart is confirmed, once
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 10L));
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 10, 10);
    }

    private static List<String> bodies(int count, String customer, String sku) {
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            bodies.add(TestProduct.order(customer, sku, 1, 100));
        }
        return bodies;
    }

    private static void assertAllPendingWithinBudget(List<Answer> answers) {
        assertThat(answers).allSatisfy(a -> {
            assertThat(a.status()).as("%s", a).isEqualTo(202);
            assertThat(a.orderStatus()).as("%s", a).isEqualTo("PENDING_CONFIRMATION");
            assertThat(a.took()).as("%s", a).isLessThan(WITHIN_BUDGET);
        });
    }
}
