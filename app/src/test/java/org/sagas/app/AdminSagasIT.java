package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.sagas.app.AdminAccessIT.assertProblem;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;

/**
 * Finding, inspecting and acting on one saga through the operator API, on
 * the real product. Parked orders are only retried when someone asks (a 10-minute park retry, no
 * breaker to close), so each test decides when they move.
 */
@RealInfrastructure
class AdminSagasIT extends GameDayLifecycle {
    private static final Duration SETTLE = Duration.ofSeconds(60);
    private AdminHttp admin;

    @Override
    Map<String, String> settings() {
        return AdminHttp.SETTINGS;
    }

    private AdminHttp admin() {
        if (admin == null) {
            admin = AdminHttp.operator(product);
        }
        return admin;
    }

    @Test
    void shouldFindOrdersByEachFilterAndPageThroughThemWithACursor() {
        // Given a customer with a rejected order and two pending ones, one of them an incident
        String customer = "c-find-" + UUID.randomUUID().toString().substring(0, 8);
        String sku = Submissions.sku();
        Instant before = Instant.now().minusSeconds(1);
        product.stock(sku, 0);
        UUID rejected = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order(customer, sku, 1, 5)));
        String key = Submissions.key();
        UUID pending1 = parked(customer, sku, key);
        UUID pending2 = parked(customer, sku, Submissions.key());
        Instant after = Instant.now().plusSeconds(1);
        markIncident(pending2, "PAYMENT_UNRESOLVED", "no answer from the provider");
        String c = "customerId=" + customer;

        // Then each filter finds what it should, newest first
        assertThat(ids("/admin/sagas?" + c)).containsExactly(pending2, pending1, rejected);
        assertThat(ids("/admin/sagas?" + c + "&status=PENDING_CONFIRMATION")).containsExactly(pending2, pending1);
        assertThat(ids("/admin/sagas?" + c + "&status=REJECTED&status=PENDING_CONFIRMATION")).hasSize(3);
        assertThat(ids("/admin/sagas?" + c + "&status=REJECTED,AWAITING_PAYMENT")).containsExactly(rejected);
        assertThat(ids("/admin/sagas?idempotencyKey=" + key)).containsExactly(pending1);
        assertThat(ids("/admin/sagas?" + c + "&parkedOn=inventory")).containsExactly(pending2, pending1);
        assertThat(ids("/admin/sagas?" + c + "&step=RESERVE_STOCK")).as("live sagas only")
                .containsExactly(pending2, pending1);
        assertThat(ids("/admin/sagas?" + c + "&stuckForSeconds=0")).containsExactly(pending2, pending1);
        assertThat(ids("/admin/sagas?" + c + "&stuckForSeconds=3600")).isEmpty();
        assertThat(ids("/admin/sagas?" + c + "&createdFrom=" + before + "&createdTo=" + after)).hasSize(3);
        assertThat(ids("/admin/sagas?" + c + "&createdTo=" + before)).isEmpty();
        assertThat(ids("/admin/sagas?" + c + "&incident=any")).containsExactly(pending2);
        assertThat(ids("/admin/sagas?" + c + "&incident=PAYMENT_UNRESOLVED")).containsExactly(pending2);
        assertThat(ids("/admin/sagas?" + c + "&incident=POISON_REPLY")).isEmpty();
        JsonNode incident = admin().getJson("/admin/incidents?limit=500").get("items");
        assertThat(incident.findValuesAsText("orderId")).contains(pending2.toString());
        // And a page of two, then the rest from its cursor, lists each once
        JsonNode first = admin().getJson("/admin/sagas?" + c + "&limit=2");
        JsonNode second = admin().getJson("/admin/sagas?" + c + "&limit=2&cursor=" + first.get("nextCursor").asText());
        assertThat(first.get("items").findValuesAsText("orderId")).containsExactly(pending2.toString(),
                pending1.toString());
        assertThat(second.get("items").findValuesAsText("orderId")).containsExactly(rejected.toString());
        assertThat(second.get("nextCursor").isNull()).isTrue();
        // And a wrong filter is named
        assertProblem(admin().get("/admin/sagas?status=SHIPPED"), 400);
        assertProblem(admin().get("/admin/sagas?cursor=not-a-cursor"), 400);
        assertProblem(admin().get("/admin/sagas?customer=" + customer), 400);
    }

    @Test
    void shouldShowAnOrderWithItsHistoryAndWhatTheParticipantsHold() {
        // Given a confirmed order
        String sku = Submissions.sku();
        product.stock(sku, 5);
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-show", sku, 2, 700)));
        product.awaitStatus(id, "CONFIRMED", SETTLE);

        // When an operator inspects it
        JsonNode view = admin().getJson("/admin/sagas/" + id);

        // Then the order, the saga, the whole history and the participants' live view are there
        assertThat(view.path("order").path("status").asText()).isEqualTo("CONFIRMED");
        assertThat(view.path("order").path("totalCents").asLong()).isEqualTo(1400);
        assertThat(view.path("saga").path("status").asText()).isEqualTo("COMPLETED");
        assertThat(view.path("saga").path("version").asInt()).isPositive();
        assertThat(view.path("history").findValuesAsText("code")).contains("started", "completed");
        assertThat(view.path("history").findValuesAsText("step")).contains("RESERVE_STOCK", "CHARGE_PAYMENT");
        JsonNode inventory = view.path("participants").path("inventory");
        JsonNode payment = view.path("participants").path("payment");
        assertThat(inventory.path("stale").asBoolean()).isFalse();
        assertThat(inventory.path("value").findValuesAsText("status")).containsExactly("RESERVED");
        assertThat(payment.path("stale").asBoolean()).isFalse();
        assertThat(payment.path("value").findValuesAsText("status")).containsExactly("CAPTURED");
        assertThat(view.path("outbox").isArray()).isTrue();
        assertThat(view.path("deadLetters").path("outbox").isArray()).isTrue();
        // And an unknown order is a 404, a malformed id a 400
        assertProblem(admin().get("/admin/sagas/" + UUID.randomUUID()), 404);
        assertProblem(admin().get("/admin/sagas/not-an-id"), 400);
    }

    @Test
    void shouldRetryAParkedOrderAtOnceAndAuditWhoAndWhy() {
        // Given an order parked on inventory, which is back (nothing would retry it for ten minutes)
        String sku = Submissions.sku();
        product.stock(sku, 3);
        UUID id = parked("c-retry", sku, Submissions.key());
        assertThat(product.status(id)).isEqualTo("PENDING_CONFIRMATION");

        // When an operator retries it
        HttpResponse<String> r = admin().post("/admin/sagas/" + id + "/retry", AdminHttp.reason("inventory is back"));

        // Then the reservation ran at once and the order goes on to be confirmed
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        JsonNode answer = TestProduct.read(r.body());
        assertThat(answer.path("outcome").asText()).isEqualTo("APPLIED");
        assertThat(answer.path("saga").path("status").asText()).isNotEqualTo("PENDING_CONFIRMATION");
        product.awaitStatus(id, "CONFIRMED", SETTLE);
        Invariants.check(product, List.of(id));
        // And the audit says who, what, why and how it went; the public history only that an operator did
        JsonNode audit = admin().auditOf(id.toString()).get(0);
        assertThat(audit.path("actor").asText()).isEqualTo("admin");
        assertThat(audit.path("action").asText()).isEqualTo("retry");
        assertThat(audit.path("reason").asText()).isEqualTo("inventory is back");
        assertThat(audit.path("outcome").asText()).isEqualTo("APPLIED");
        assertThat(Invariants.reasons(product, id)).contains("operator_retry")
                .noneMatch(reason -> reason.contains("inventory is back"));
        // And an ended saga cannot be retried: 409 with its state
        HttpResponse<String> again = admin().post("/admin/sagas/" + id + "/retry", "{}");
        assertProblem(again, 409);
        assertThat(TestProduct.read(again.body()).path("current").path("status").asText()).isEqualTo("CONFIRMED");
    }

    @Test
    void shouldCancelAPendingOrderAndTellTheCustomer() {
        // Given an order pending confirmation
        String sku = Submissions.sku();
        product.stock(sku, 4);
        UUID id = parked("c-cancel", sku, Submissions.key());

        // When an operator cancels it
        HttpResponse<String> r = admin().post("/admin/sagas/" + id + "/cancel", AdminHttp.reason("customer called"));

        // Then it ends CANCELLED with a notice, holding no stock
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(TestProduct.read(r.body()).path("saga").path("status").asText()).isEqualTo("CANCELLED");
        assertThat(product.status(id)).isEqualTo("CANCELLED");
        assertThat(GameDay.noticeKinds(bootstrap, List.of(id)).get(id)).containsExactly("CANCELLED");
        Invariants.assertStock(product, sku, 4, 0);
        Invariants.check(product, List.of(id));
        // And cancelling or retrying it again is refused with its state, nothing done twice
        HttpResponse<String> again = admin().post("/admin/sagas/" + id + "/cancel", "{}");
        assertProblem(again, 409);
        assertThat(TestProduct.read(again.body()).path("current").path("status").asText()).isEqualTo("CANCELLED");
        assertThat(admin().auditOf(id.toString()).findValuesAsText("outcome")).containsExactly("REFUSED", "APPLIED");
    }

    @Test
    void shouldCancelAnOrderWhoseChargeIsUnderWayAndRefundTheCapture() {
        // Given an order whose charge the provider takes a second to make (its timeout is two)
        String sku = Submissions.sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"latencyMs\":1000}");
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-refund", sku, 2, 300)));
        assertThat(product.status(id)).isEqualTo("AWAITING_PAYMENT");

        // When an operator cancels it while the charge is under way
        HttpResponse<String> r = admin().post("/admin/sagas/" + id + "/cancel", AdminHttp.reason("fraud suspected"));

        // Then the stock is released at once, and the capture that lands afterwards is refunded
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        product.awaitStatus(id, "CANCELLED", SETTLE);
        Invariants.assertStock(product, sku, 5, 0);
        await("the charge refunded").atMost(SETTLE).untilAsserted(() ->
                assertThat(product.charges(id).findValuesAsText("status")).containsExactly("REFUNDED"));
        Invariants.check(product, List.of(id));
    }

    @Test
    void shouldRefuseToCancelAConfirmedOrderAndShowItsState() {
        String sku = Submissions.sku();
        product.stock(sku, 1);
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-conf", sku, 1, 10)));
        product.awaitStatus(id, "CONFIRMED", SETTLE);

        HttpResponse<String> r = admin().post("/admin/sagas/" + id + "/cancel", AdminHttp.reason("too late"));

        assertProblem(r, 409);
        JsonNode problem = TestProduct.read(r.body());
        assertThat(problem.path("type").asText()).isEqualTo("/problems/not-allowed");
        assertThat(problem.path("current").path("status").asText()).isEqualTo("CONFIRMED");
        assertThat(product.charges(id).findValuesAsText("status")).containsExactly("CAPTURED");
        assertProblem(admin().post("/admin/sagas/" + UUID.randomUUID() + "/cancel", "{}"), 404);
    }

    @Test
    void shouldConfirmAPaymentUnknownOrderWhenTheOperatorSaysItWasCaptured() {
        // Given an order whose payment answer never came (the provider is down past the step timeout)
        String sku = Submissions.sku();
        product.stock(sku, 2);
        product.paymentFaults("{\"down\":true}");
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-unknown", sku, 1, 900)));
        product.awaitStatus(id, "PAYMENT_UNKNOWN", SETTLE);

        // When an operator settles it as captured, twice
        HttpResponse<String> first = admin().post("/admin/sagas/" + id + "/payment-outcome",
                "{\"outcome\":\"CAPTURED\",\"reason\":\"provider's dashboard shows the capture\"}");
        HttpResponse<String> repeat = admin().post("/admin/sagas/" + id + "/payment-outcome",
                "{\"outcome\":\"CAPTURED\"}");
        HttpResponse<String> contrary = admin().post("/admin/sagas/" + id + "/payment-outcome",
                "{\"outcome\":\"DECLINED\"}");

        // Then it is confirmed once, as the provider's reply would have; the repeat changes nothing
        assertThat(first.statusCode()).as(first.body()).isEqualTo(200);
        assertThat(TestProduct.read(first.body()).path("saga").path("status").asText()).isEqualTo("CONFIRMED");
        assertThat(repeat.statusCode()).isEqualTo(200);
        assertThat(TestProduct.read(repeat.body()).path("outcome").asText()).isEqualTo("ALREADY_APPLIED");
        assertProblem(contrary, 409);
        assertThat(GameDay.noticeKinds(bootstrap, List.of(id)).get(id)).containsExactly("CONFIRMED");
        // And when the provider is back the command still pending charges once
        product.healthy();
        await("the charge captured").atMost(SETTLE).untilAsserted(() ->
                assertThat(product.charges(id).findValuesAsText("status")).containsExactly("CAPTURED"));
        Invariants.check(product, List.of(id));
        assertProblem(admin().post("/admin/sagas/" + id + "/payment-outcome", "{\"outcome\":\"LOST\"}"), 400);
    }

    @Test
    void shouldCancelAPaymentUnknownOrderWhenTheOperatorSaysItWasDeclined() {
        String sku = Submissions.sku();
        product.stock(sku, 2);
        product.paymentFaults("{\"down\":true}");
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-declined", sku, 2, 900)));
        product.awaitStatus(id, "PAYMENT_UNKNOWN", SETTLE);
        HttpResponse<String> early = admin().post("/admin/sagas/" + UUID.randomUUID() + "/payment-outcome",
                "{\"outcome\":\"DECLINED\"}");

        HttpResponse<String> r = admin().post("/admin/sagas/" + id + "/payment-outcome",
                "{\"outcome\":\"DECLINED\",\"reason\":\"card blocked\"}");

        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        product.awaitStatus(id, "CANCELLED", SETTLE);
        Invariants.assertStock(product, sku, 2, 0);
        assertProblem(early, 404);
        // The provider, back, declines the pending command too: nothing was ever captured
        product.paymentFaults("{\"down\":false,\"declineRate\":1.0}");
        await("the charge declined").atMost(SETTLE).untilAsserted(() ->
                assertThat(product.charges(id).findValuesAsText("status")).containsExactly("DECLINED"));
        Invariants.check(product, List.of(id));
    }

    @Test
    void shouldGiveTheLoserOfARaceWithTheEngineA409WithTheCurrentState() throws Exception {
        // Given a parked order, and the engine moving it (its version check holds the row) at the moment
        String sku = Submissions.sku();
        product.stock(sku, 1);
        UUID id = parked("c-race", sku, Submissions.key());
        int historyBefore = history(id);
        var jdbi = product.product().node().jdbi;
        CompletableFuture<HttpResponse<String>> cancel;
        int movedTo;
        try (Handle engine = jdbi.open()) {
            engine.begin();
            movedTo = engine.createQuery("UPDATE saga_instance SET version = version + 1 WHERE saga_id = :id"
                    + " RETURNING version").bind("id", id).mapTo(Integer.class).one();

            // When an operator cancels it meanwhile
            cancel = CompletableFuture.supplyAsync(() -> admin().post("/admin/sagas/" + id + "/cancel",
                    AdminHttp.reason("race")));
            await("the cancel waits for the engine's row").atMost(Duration.ofSeconds(30)).until(() ->
                    jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM pg_stat_activity WHERE wait_event_type"
                            + " = 'Lock' AND query LIKE '%UPDATE saga_instance SET status%'").mapTo(Long.class).one()) > 0);
            engine.commit();
        }

        // Then the cancel loses: 409 with the saga as the engine left it, and nothing written
        HttpResponse<String> r = cancel.get();
        assertProblem(r, 409);
        JsonNode problem = TestProduct.read(r.body());
        assertThat(problem.path("type").asText()).isEqualTo("/problems/conflict");
        assertThat(problem.path("current").path("version").asInt()).isEqualTo(movedTo);
        assertThat(problem.path("current").path("status").asText()).isEqualTo("PENDING_CONFIRMATION");
        assertThat(history(id)).isEqualTo(historyBefore);
        assertThat(admin().auditOf(id.toString()).get(0).path("outcome").asText()).isEqualTo("CONFLICT");
        // And deciding again on the state it got, the operator wins
        assertThat(admin().post("/admin/sagas/" + id + "/cancel", AdminHttp.reason("again")).statusCode())
                .isEqualTo(200);
    }

    /** An order accepted while inventory was down: parked on it, inventory healthy again. */
    private UUID parked(String customer, String sku, String key) {
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        HttpResponse<String> r = product.submit(key, TestProduct.order(customer, sku, 1, 100));
        product.healthy();
        assertThat(TestProduct.read(r.body()).path("status").asText()).as(r.body()).isEqualTo("PENDING_CONFIRMATION");
        return TestProduct.orderId(r);
    }

    private List<UUID> ids(String path) {
        return admin().getJson(path).get("items").findValuesAsText("orderId").stream().map(UUID::fromString).toList();
    }

    private void markIncident(UUID id, String cause, String detail) {
        // What the engine writes when it raises an incident; the operator API reads and clears it.
        product.product().node().jdbi.useHandle(h -> h.createUpdate("UPDATE saga_instance SET incident_cause = :c,"
                + " incident_detail = :d, incident_at = now() WHERE saga_id = :id").bind("c", cause).bind("d", detail)
                .bind("id", id).execute());
    }

    private int history(UUID id) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM saga_history"
                + " WHERE saga_id = :id").bind("id", id).mapTo(Integer.class).one());
    }
}
