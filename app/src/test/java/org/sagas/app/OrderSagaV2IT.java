package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.sagas.app.GameDay.INVENTORY_DOWN;
import static org.sagas.app.GameDay.SETTLE;
import static org.sagas.app.Submissions.sku;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.app.Submissions.Answer;
import org.sagas.app.cli.AdminCli;
import org.sagas.testkit.RealInfrastructure;

/**
 * Version 2 of the orders saga on the real product (docs/design.md, "A second version of a saga"):
 * new orders start on it only once {@code SAGA_ORDER_SAGA_VERSION=2} says so; they are screened for
 * fraud before the charge, refused ones cancelled with their stock back and nothing charged, and
 * parked while the fraud service is down; an order started on version 1 finishes on version 1.
 *
 * <p>One restart onto version 2 (test 1); the other tests run on it without another.
 */
@RealInfrastructure
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OrderSagaV2IT extends GameDayLifecycle {
    /** New orders on version 2; the fraud service as patient as the tests' inventory (a cold JVM). */
    private static final Map<String, String> V2 = Map.of("SAGA_ORDER_SAGA_VERSION", "2",
            "SAGA_FRAUD_TIMEOUT_MS", "3000", "SAGA_PARK_RETRY_MS", "1000", "SAGA_VERSIONS_HEARTBEAT_MS", "1000");
    private static final String FRAUD_DOWN = "{\"latencyMs\":0,\"errorRate\":0.0,\"down\":true}";

    @Test
    @Order(1)
    void shouldMoveChosenPendingOrdersToVersionTwoThroughABatchAndRefuseThoseWithoutAMapping() throws Exception {
        // Given, on version 1 (the default), two orders pending while inventory is down (one of a
        // customer the fraud screen refuses) and one confirmed order
        product.defaults();
        String sku = sku();
        product.stock(sku, 5);
        Answer done = Submissions.one(product::submit, TestProduct.order("c-move-done", sku, 1, 100));
        product.awaitStatus(done.orderId(), "CONFIRMED", SETTLE);
        product.inventoryFaults(INVENTORY_DOWN);
        Answer clean = Submissions.one(product::submit, TestProduct.order("c-move", sku, 1, 100));
        Answer flagged = Submissions.one(product::submit, TestProduct.order("c-fraud", sku, 1, 100));
        List<UUID> pending = List.of(clean.orderId(), flagged.orderId());
        assertThat(List.of(clean, flagged)).allSatisfy(a -> assertThat(a.orderStatus()).isEqualTo("PENDING_CONFIRMATION"));
        String filter = "{\"customerId\":\"%s\",\"version\":1}";

        // When an operator dry-runs the move of the confirmed order and of the pending ones (the CLI)
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        int code = AdminCli.run(new String[] {"migrate", "--to-version", "2", "--customer", "c-move", "--version", "1",
                "--dry-run"}, Map.of("SAGA_ADMIN_URL", product.admin("").toString(), "SAGA_ADMIN_TOKEN",
                TestProduct.OPERATOR_TOKEN)::get, new java.io.PrintStream(out, true), System.err);
        AdminHttp operator = AdminHttp.operator(product);
        com.fasterxml.jackson.databind.JsonNode endedPlan = TestProduct.read(operator.post("/admin/batches",
                "{\"action\":\"migrate\",\"toVersion\":2,\"dryRun\":true,\"filter\":"
                        + String.format(filter, "c-move-done") + "}").body());

        // Then the dry run shows what the pending order would become, and that the ended one stays, with why
        assertThat(code).as(out.toString()).isZero();
        assertThat(out.toString()).contains(clean.orderId() + "  v1 RESERVE_STOCK -> v2 RESERVE_STOCK");
        assertThat(endedPlan.path("plan").get(0).path("to").isNull()).isTrue();
        assertThat(endedPlan.path("plan").get(0).path("refused").asText()).contains("ended");
        assertThat(pending).allSatisfy(id -> assertThat(definitionVersion(id)).isEqualTo(1));

        // When the operator runs the move of both pending orders and of the confirmed one, and inventory comes back
        for (String customer : List.of("c-move", "c-fraud", "c-move-done")) {
            com.fasterxml.jackson.databind.JsonNode started = TestProduct.read(operator.post("/admin/batches",
                    "{\"action\":\"migrate\",\"toVersion\":2,\"reason\":\"screen pending orders\",\"filter\":"
                            + String.format(filter, customer) + "}").body());
            String batch = started.path("batchId").asText();
            await("batch " + batch).atMost(Duration.ofSeconds(20)).until(() -> operator.getJson("/admin/batches/"
                    + batch).path("state").asText().equals("COMPLETED"));
        }
        assertThat(pending).allSatisfy(id -> assertThat(definitionVersion(id)).isEqualTo(2));
        assertThat(definitionVersion(done.orderId())).isEqualTo(1);
        assertThat(operator.auditOf(done.orderId().toString()).get(0).path("outcome").asText()).isEqualTo("REFUSED");
        assertThat(operator.auditOf(clean.orderId().toString()).get(0).path("action").asText()).isEqualTo("migrate");
        product.healthy();

        // Then the moved orders keep their history, a row telling of the move, and run version 2: the
        // clean one is screened and confirmed, the flagged one refused by the screen and cancelled
        Invariants.awaitSettled(product, pending, SETTLE);
        assertThat(product.status(clean.orderId())).isEqualTo("CONFIRMED");
        assertThat(product.status(flagged.orderId())).isEqualTo("CANCELLED");
        assertThat(Invariants.reasons(product, clean.orderId())).containsSubsequence("inventory_unavailable",
                "migrated");
        assertThat(steps(clean.orderId())).containsSubsequence("RESERVE_STOCK", "RESERVE_STOCK", "SCREEN_FRAUD",
                "CHARGE_PAYMENT");
        assertThat(Invariants.reasons(product, flagged.orderId())).contains("migrated", "fraud_refused");
        assertThat(product.charges(flagged.orderId())).isEmpty();
        Invariants.check(product, List.of(done.orderId(), clean.orderId(), flagged.orderId()));
        Invariants.assertStock(product, sku, 3, 2);
    }

    @Test
    @Order(2)
    void shouldFinishOnVersionOneAnOrderStartedOnItAfterNewOrdersStartOnVersionTwo() {
        // Given an order accepted on version 1 (the default), pending while inventory is down
        product.defaults();
        String sku = sku();
        product.stock(sku, 5);
        product.inventoryFaults(INVENTORY_DOWN);
        Answer onV1 = Submissions.one(product::submit, TestProduct.order("c-v1", sku, 1, 100));
        assertThat(onV1.orderStatus()).as("%s", onV1).isEqualTo("PENDING_CONFIRMATION");
        assertThat(definitionVersion(onV1.orderId())).isEqualTo(1);

        // When the product restarts with new orders on version 2 (inventory back) and takes one
        product.ensure(V2);
        product.healthy();
        Answer onV2 = Submissions.one(product::submit, TestProduct.order("c-v2", sku, 1, 100));

        // Then the old order ends on version 1, never screened; the new one ran version 2
        List<UUID> ids = List.of(onV1.orderId(), onV2.orderId());
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 2L));
        assertThat(definitionVersion(onV1.orderId())).isEqualTo(1);
        assertThat(steps(onV1.orderId())).doesNotContain("SCREEN_FRAUD").contains("CHARGE_PAYMENT");
        assertThat(definitionVersion(onV2.orderId())).isEqualTo(2);
        assertThat(steps(onV2.orderId())).containsSubsequence("RESERVE_STOCK", "SCREEN_FRAUD", "CHARGE_PAYMENT");
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 3, 2);
    }

    @Test
    @Order(3)
    void shouldConfirmACleanOrderAndCancelThoseTheFraudScreenRefusesWithTheirStockBack() {
        // Given version 2 and stock
        product.ensure(V2);
        String sku = sku();
        product.stock(sku, 10);

        // When a clean order, one of a flagged customer and one over the limit are placed
        Answer clean = Submissions.one(product::submit, TestProduct.order("c-clean", sku, 1, 100));
        Answer flagged = Submissions.one(product::submit, TestProduct.order("c-fraud", sku, 1, 100));
        Answer tooBig = Submissions.one(product::submit, TestProduct.order("c-big", sku, 1, 600_000));
        List<UUID> ids = List.of(clean.orderId(), flagged.orderId(), tooBig.orderId());
        assertThat(List.of(clean, flagged, tooBig)).allSatisfy(a -> assertThat(a.status()).as("%s", a).isEqualTo(202));

        // Then the clean one is confirmed and charged; the refused ones are cancelled, nothing charged
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(ids.stream().map(product::status).toList()).containsExactly("CONFIRMED", "CANCELLED", "CANCELLED");
        assertThat(product.charges(clean.orderId())).hasSize(1);
        for (UUID refused : List.of(flagged.orderId(), tooBig.orderId())) {
            assertThat(Invariants.reasons(product, refused)).contains("fraud_refused");
            assertThat(product.charges(refused)).as("charges of %s", refused).isEmpty();
        }
        assertThat(GameDay.noticeKinds(bootstrap, List.of(flagged.orderId()))).containsEntry(flagged.orderId(),
                List.of("CANCELLED"));
        // And the refused orders' stock is back: only the confirmed order's unit stays reserved
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 9, 1);
    }

    @Test
    @Order(4)
    void shouldParkOnTheFraudServiceWhileItIsDownAndResumeWhenItIsBack() {
        // Given version 2 and a fraud service that answers 503 to every screening
        product.ensure(V2);
        String sku = sku();
        product.stock(sku, 5);
        double fallbacksBefore = product.metrics().value("saga_fallback_total", "operation", "screen");
        product.fraudFaults(FRAUD_DOWN);

        // When two orders are placed
        Answer first = Submissions.one(product::submit, TestProduct.order("c-wait-1", sku, 1, 100));
        Answer second = Submissions.one(product::submit, TestProduct.order("c-wait-2", sku, 1, 100));
        List<UUID> ids = List.of(first.orderId(), second.orderId());

        // Then they are accepted as pending, parked on the fraud service with their stock held, counted
        assertThat(List.of(first, second)).allSatisfy(a -> assertThat(a.orderStatus()).as("%s", a)
                .isEqualTo("PENDING_CONFIRMATION"));
        await("parked on fraud").atMost(Duration.ofSeconds(10)).untilAsserted(() -> ids.forEach(id ->
                assertThat(parkedOn(id)).isEqualTo("fraud")));
        Invariants.assertStock(product, sku, 3, 2);
        assertThat(product.metrics().value("saga_fallback_total", "operation", "screen") - fallbacksBefore)
                .isGreaterThanOrEqualTo(2);
        assertThat(ids).allSatisfy(id -> assertThat(product.charges(id)).isEmpty());

        // When the fraud service is back
        product.healthy();

        // Then both are screened, charged and confirmed
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 2L));
        assertThat(Invariants.reasons(product, first.orderId())).contains("fraud_unavailable");
        Invariants.check(product, ids);
        Invariants.assertStock(product, sku, 3, 2);
    }

    @Test
    @Order(5)
    void shouldTellTheCustomerTheirPaymentWasDeclinedWhenVersionTwoCancelsForADecline() {
        // Given version 2 and a provider that declines every charge
        product.ensure(V2);
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"declineRate\":1.0}");

        // When an order is placed
        Answer declined = Submissions.one(product::submit, TestProduct.order("c-declined", sku, 1, 100));

        // Then it is cancelled, its stock put back, and the notice says it was the payment
        Invariants.awaitSettled(product, List.of(declined.orderId()), SETTLE);
        assertThat(product.status(declined.orderId())).isEqualTo("CANCELLED");
        assertThat(Invariants.reasons(product, declined.orderId())).contains("payment_declined");
        assertThat(GameDay.noticeKinds(bootstrap, List.of(declined.orderId())))
                .containsEntry(declined.orderId(), List.of("PAYMENT_DECLINED"));
        Invariants.assertStock(product, sku, 5, 0);
    }

    @Test
    @Order(6)
    void shouldShowEachVersionWithItsLiveOrdersAndFindOrdersByVersion() {
        // Given version 2, one order of it parked on the fraud service (live), one of a viewer's reading
        product.ensure(V2);
        String sku = sku();
        product.stock(sku, 2);
        product.fraudFaults(FRAUD_DOWN);
        Answer parked = Submissions.one(product::submit, TestProduct.order("c-census", sku, 1, 100));
        await("parked on fraud").atMost(Duration.ofSeconds(10)).until(() -> "fraud".equals(parkedOn(parked.orderId())));
        AdminHttp viewer = new AdminHttp(product, TestProduct.VIEWER_TOKEN);

        // When a viewer asks for the definitions
        com.fasterxml.jackson.databind.JsonNode items = viewer.getJson("/admin/definitions").get("items");

        // Then both versions of the orders saga are there, version 2 the one new orders start on,
        // with its parked order counted; a caller without a token is refused
        assertThat(items.findValuesAsText("version")).contains("1", "2");
        com.fasterxml.jackson.databind.JsonNode v2 = definition(items, 2);
        assertThat(v2.path("inThisProcess").asBoolean()).isTrue();
        assertThat(v2.path("startsNewInstances").asBoolean()).isTrue();
        assertThat(v2.path("liveProcesses").asInt()).isPositive();
        assertThat(v2.path("liveInstances").path("PARKED").asLong()).isPositive();
        assertThat(definition(items, 1).path("startsNewInstances").asBoolean()).isFalse();
        assertThat(new AdminHttp(product, null).get("/admin/definitions").statusCode()).isEqualTo(401);
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        assertThat(AdminCli.run(new String[] {"definitions"}, Map.of("SAGA_ADMIN_URL", product.admin("").toString(),
                "SAGA_ADMIN_TOKEN", TestProduct.VIEWER_TOKEN)::get, new java.io.PrintStream(out, true), System.err))
                .isZero();
        assertThat(out.toString()).containsPattern("order v2  [1-9][0-9]* live .*PARKED=[1-9].*new sagas start here");

        // And the metrics count it under its version
        await("version gauges").atMost(Duration.ofSeconds(15)).untilAsserted(() -> assertThat(product.metrics()
                .value("saga_live_instances", "version", "2", "status", "PARKED")).isPositive());

        // And the saga search finds the order by its version, and shows the version
        com.fasterxml.jackson.databind.JsonNode onV2 = viewer.getJson("/admin/sagas?customerId=c-census&version=2")
                .get("items");
        assertThat(onV2.findValuesAsText("orderId")).containsExactly(parked.orderId().toString());
        assertThat(onV2.get(0).path("definitionVersion").asInt()).isEqualTo(2);
        assertThat(viewer.getJson("/admin/sagas?customerId=c-census&version=1").get("items")).isEmpty();
        assertThat(viewer.getJson("/admin/sagas/" + parked.orderId()).path("saga").path("definitionVersion").asInt())
                .isEqualTo(2);
        assertThat(viewer.get("/admin/sagas?version=0").statusCode()).isEqualTo(400);
        product.healthy();
        Invariants.awaitSettled(product, List.of(parked.orderId()), SETTLE);
    }

    private static com.fasterxml.jackson.databind.JsonNode definition(com.fasterxml.jackson.databind.JsonNode items,
            int version) {
        for (com.fasterxml.jackson.databind.JsonNode item : items) {
            if (item.path("type").asText().equals("order") && item.path("version").asInt() == version) {
                return item;
            }
        }
        throw new AssertionError("no order saga version " + version + " in " + items);
    }

    private static int definitionVersion(UUID sagaId) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT definition_version FROM saga_instance WHERE saga_id = :id").bind("id", sagaId)
                .mapTo(Integer.class).one());
    }

    private static String parkedOn(UUID sagaId) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT parked_on FROM saga_instance WHERE saga_id = :id").bind("id", sagaId)
                .mapTo(String.class).one());
    }

    private static List<String> steps(UUID sagaId) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT step FROM saga_history WHERE saga_id = :id ORDER BY id").bind("id", sagaId)
                .mapTo(String.class).list());
    }
}
