package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.sagas.app.GameDay.INVENTORY_DOWN;
import static org.sagas.app.GameDay.SETTLE;
import static org.sagas.app.Submissions.sku;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.testkit.RealInfrastructure;

/**
 * A customer cancels an order (docs/design.md, "Cancelling an order") on the real product, at each
 * stage: parked while inventory is down, awaiting payment while the provider is down, confirmed,
 * another customer's, with a replayed key and with bad input. Stock is released and nothing stays
 * charged, as the product's own checker judges it; refusals change nothing.
 */
@RealInfrastructure
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class CancelOrderIT extends GameDayLifecycle {
    /** Realistic inventory timeouts, and a charge that lands after its order ended refunded within seconds. */
    private static final Map<String, String> SETTINGS = GameDay.realisticWith("SAGA_RECONCILER_GRACE_MS", "3000");
    private static final String PAYMENT_DOWN =
            "{\"latencyMs\":0,\"declineRate\":0.0,\"down\":true,\"timeoutAfterCharge\":false}";
    private static final String SHOP_A = "cancel-shop-a-0123456789";
    private static final String SHOP_B = "cancel-shop-b-0123456789";
    private static Path keysFile;

    @AfterAll
    static void removeKeys() throws IOException {
        if (keysFile != null) {
            Files.deleteIfExists(keysFile);
        }
    }

    @Test
    @Order(1)
    void shouldCancelAParkedOrderWhileInventoryIsDownAndReleaseItOnceInventoryReturns() {
        // Given an order parked as pending while inventory is down
        product.ensure(SETTINGS);
        String sku = sku();
        product.stock(sku, 5);
        product.inventoryFaults(INVENTORY_DOWN);
        HttpResponse<String> placed = product.submitWithinApiBudget(Submissions.key(),
                TestProduct.order("c-cancel-park", sku, 2, 100));
        assertThat(TestProduct.read(placed.body()).path("status").asText()).isEqualTo("PENDING_CONFIRMATION");
        UUID id = TestProduct.orderId(placed);
        String key = Submissions.key();

        // When its customer cancels it
        HttpResponse<String> cancelled = cancel(id, key);

        // Then the cancel is accepted, its undoing under way while inventory cannot be reached
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(202);
        assertThat(TestProduct.read(cancelled.body()).path("status").asText()).isEqualTo("COMPENSATING");
        assertThat(TestProduct.orderId(cancelled)).isEqualTo(id);
        assertThat(product.status(id)).isEqualTo("COMPENSATING");

        // When inventory comes back
        product.healthy();

        // Then the order ends cancelled by its customer: nothing held, nothing charged
        product.awaitStatus(id, "CANCELLED", SETTLE);
        assertThat(Invariants.reasons(product, id)).contains("cancelled_by_customer");
        assertThat(product.charges(id)).isEmpty();
        Invariants.assertStock(product, sku, 5, 0);
        Invariants.check(product, List.of(id));
        // And the same key answers the same, said to be a replay; a new key answers how it is now
        HttpResponse<String> replayed = cancel(id, key);
        assertThat(replayed.statusCode()).isEqualTo(202);
        assertThat(replayed.body()).isEqualTo(cancelled.body());
        assertThat(replayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        HttpResponse<String> again = cancel(id, Submissions.key());
        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(TestProduct.read(again.body()).path("status").asText()).isEqualTo("CANCELLED");
        assertThat(again.headers().firstValue("Idempotent-Replayed")).isEmpty();
    }

    @Test
    @Order(2)
    void shouldCancelAnOrderAwaitingPaymentWhileTheProviderIsDownAndKeepNothingCharged() {
        // Given an order with its stock reserved whose charge cannot reach the provider
        product.ensure(SETTINGS);
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults(PAYMENT_DOWN);
        HttpResponse<String> placed = product.submit(Submissions.key(), TestProduct.order("c-cancel-pay", sku, 1, 700));
        assertThat(TestProduct.read(placed.body()).path("status").asText()).isEqualTo("AWAITING_PAYMENT");
        UUID id = TestProduct.orderId(placed);
        Invariants.assertStock(product, sku, 4, 1);

        // When its customer cancels it
        HttpResponse<String> cancelled = cancel(id, Submissions.key());

        // Then it is cancelled at once, its stock released
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(200);
        assertThat(TestProduct.read(cancelled.body()).path("status").asText()).isEqualTo("CANCELLED");
        assertThat(product.status(id)).isEqualTo("CANCELLED");
        Invariants.assertStock(product, sku, 5, 0);

        // When the provider comes back and the charge that was on its way lands
        product.healthy();

        // Then the charge is refunded (by the cancel's refund, or the reconciler's): nothing kept charged
        await("the late charge refunded").atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(500))
                .untilAsserted(() -> assertThat(product.charges(id).findValuesAsText("status"))
                        .containsExactly("REFUNDED"));
        assertThat(product.status(id)).isEqualTo("CANCELLED");
        Invariants.check(product, List.of(id));
    }

    @Test
    @Order(3)
    void shouldRefuseToCancelAConfirmedOrderAndBadInputChangingNothing() {
        // Given a confirmed order
        product.ensure(SETTINGS);
        String sku = sku();
        product.stock(sku, 5);
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-cancel-late", sku, 1, 100)));
        product.awaitStatus(id, "CONFIRMED", SETTLE);
        JsonNode before = product.order(id);

        // When its customer tries to cancel it, and sends cancels without a key, with a bad key or id
        String key = Submissions.key();
        HttpResponse<String> late = cancel(id, key);
        HttpResponse<String> noKey = cancel(id, null);
        HttpResponse<String> spaced = cancel(id, "a key with spaces");
        HttpResponse<String> badId = product.send(cancelRequest("not-an-id", Submissions.key()).build());
        HttpResponse<String> unknown = cancel(UUID.randomUUID(), Submissions.key());

        // Then each is a problem by its type, and the order is as it was
        assertProblem(late, 409, "order-confirmed");
        assertThat(TestProduct.read(late.body()).path("orderId").asText()).isEqualTo(id.toString());
        assertProblem(noKey, 400, "invalid-request");
        assertProblem(spaced, 400, "invalid-request");
        assertProblem(badId, 400, "invalid-request");
        assertProblem(unknown, 404, "not-found");
        assertThat(product.order(id)).isEqualTo(before);
        assertThat(GameDay.keyStored(product, key)).isFalse();
        assertThat(product.charges(id).findValuesAsText("status")).containsExactly("CAPTURED");
        Invariants.check(product, List.of(id));
        // And the refusal is answered the same when asked again
        assertProblem(cancel(id, key), 409, "order-confirmed");
    }

    @Test
    @Order(4)
    void shouldAnswerAnotherCustomersOrderAsNotFoundAndChangeNothing() throws IOException {
        // Given API keys, each for its own customer, and an order of shop A awaiting payment
        keysFile = Files.createTempFile("cancel-keys", ".txt");
        Files.writeString(keysFile, SHOP_A + " c-cancel-a\n" + SHOP_B + " c-cancel-b\n");
        Map<String, String> withKeys = new HashMap<>(SETTINGS);
        withKeys.put("SAGA_API_KEYS_FILE", keysFile.toString());
        product.ensure(withKeys);
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"latencyMs\":3000}");
        HttpResponse<String> placed = product.submit(Submissions.key(), TestProduct.order("c-cancel-a", sku, 1, 100),
                "Authorization", "Bearer " + SHOP_A);
        assertThat(placed.statusCode()).as(placed.body()).isEqualTo(202);
        UUID id = TestProduct.orderId(placed);

        // When shop B cancels it, and a cancel comes without a key
        String key = Submissions.key();
        HttpResponse<String> stranger = product.send(cancelRequest(id.toString(), key)
                .header("Authorization", "Bearer " + SHOP_B).build());
        HttpResponse<String> anonymous = cancel(id, Submissions.key());

        // Then it is not found, as for an id that does not exist, or unauthenticated, and nothing changed
        assertProblem(stranger, 404, "not-found");
        assertProblem(anonymous, 401, "unauthenticated");
        assertThat(GameDay.keyStored(product, key)).isFalse();
        HttpResponse<String> read = product.send(HttpRequest.newBuilder(product.api("/orders/" + id))
                .header("Authorization", "Bearer " + SHOP_A).GET().build());
        assertThat(TestProduct.read(read.body()).path("history").findValuesAsText("reason"))
                .doesNotContain("cancelled_by_customer");

        // And shop A itself may cancel it under the same key shop B used
        HttpResponse<String> own = product.send(cancelRequest(id.toString(), key)
                .header("Authorization", "Bearer " + SHOP_A).build());
        assertThat(own.statusCode()).as(own.body()).isIn(200, 202);
        product.paymentFaults("{\"latencyMs\":0}");
        await("cancelled").atMost(SETTLE).until(() -> TestProduct.read(product.send(HttpRequest.newBuilder(
                product.api("/orders/" + id)).header("Authorization", "Bearer " + SHOP_A).GET().build()).body())
                .path("status").asText().equals("CANCELLED"));
        Invariants.assertStock(product, sku, 5, 0);
    }

    @Test
    @Order(5)
    void shouldAnswerOrderBusyAndChangeNothingWhenTheOrderKeepsMovingUnderTheCancel() {
        // Given an order awaiting a slow payment, whose saga row loses every version check: a trigger
        // skips each update of it, as a saga moved by a reply between each read and write would
        product.ensure(SETTINGS);
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"latencyMs\":3000}");
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-cancel-busy", sku, 1, 100)));
        String key = Submissions.key();
        product.product().node().jdbi.useHandle(h -> {
            h.execute("CREATE FUNCTION test_busy_saga() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN"
                    + " IF OLD.saga_id = '" + id + "' THEN RETURN NULL; END IF; RETURN NEW; END $$");
            h.execute("CREATE TRIGGER test_busy_saga BEFORE UPDATE ON saga_instance FOR EACH ROW"
                    + " EXECUTE FUNCTION test_busy_saga()");
        });
        HttpResponse<String> busy;
        try {
            // When its customer cancels it
            busy = cancel(id, key);
        } finally {
            product.product().node().jdbi.useHandle(h -> {
                h.execute("DROP TRIGGER test_busy_saga ON saga_instance");
                h.execute("DROP FUNCTION test_busy_saga()");
            });
        }

        // Then the answer is 503 order-busy, to ask again after Retry-After, naming the order, and nothing
        // changed: the order goes on, the key is not spent
        assertProblem(busy, 503, "order-busy");
        assertThat(busy.headers().firstValue("Retry-After")).hasValue("1");
        assertThat(TestProduct.read(busy.body()).path("orderId").asText()).isEqualTo(id.toString());
        assertThat(product.status(id)).isEqualTo("AWAITING_PAYMENT");
        assertThat(GameDay.keyStored(product, key)).isFalse();

        // And asked again under the same key once the order holds still, the cancel goes through
        HttpResponse<String> again = cancel(id, key);
        assertThat(again.statusCode()).as(again.body()).isEqualTo(200);
        assertThat(product.status(id)).isEqualTo("CANCELLED");
        product.paymentFaults("{\"latencyMs\":0}");
        Invariants.assertStock(product, sku, 5, 0);
    }

    private static HttpResponse<String> cancel(UUID id, String key) {
        return product.send(cancelRequest(id.toString(), key).build());
    }

    private static HttpRequest.Builder cancelRequest(String id, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(product.api("/orders/" + id + "/cancel"))
                .timeout(Duration.ofSeconds(10)).POST(HttpRequest.BodyPublishers.noBody());
        return key == null ? b : b.header("Idempotency-Key", key);
    }

    private static void assertProblem(HttpResponse<String> r, int status, String type) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("application/problem+json"));
        assertThat(TestProduct.read(r.body()).path("type").asText()).isEqualTo("/problems/" + type);
    }
}
