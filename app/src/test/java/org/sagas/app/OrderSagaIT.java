package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** The orders saga end to end: HTTP → inventory → outbox → Kafka → payment worker → provider → back. */
@RealInfrastructure
class OrderSagaIT {
    private TestProduct product;
    private TestInfra infra;

    @BeforeEach
    void start(TestInfra infra) {
        this.infra = infra;
        product = TestProduct.shared(infra);
        product.healthy();
    }

    @AfterEach
    void heal() {
        product.healthy();
    }

    @Test
    void shouldConfirmAnOrderWhenStockIsReservedAndPaymentCaptured() {
        // Given stock
        String sku = sku();
        product.stock(sku, 10);

        // When an order is submitted
        HttpResponse<String> response = product.submit(key(), TestProduct.order("c-1", sku, 2, 1250));

        // Then it is accepted, stock is held, and the saga confirms it asynchronously
        assertThat(response.statusCode()).isEqualTo(202);
        UUID id = TestProduct.orderId(response);
        assertThat(response.headers().firstValue("Location")).hasValue("/orders/" + id);
        assertThat(TestProduct.read(response.body()).get("status").asText()).isEqualTo("AWAITING_PAYMENT");
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(30));
        JsonNode order = product.order(id);
        assertThat(order.get("totalCents").asLong()).isEqualTo(2500);
        assertThat(order.get("history").findValuesAsText("status"))
                .containsSubsequence("PENDING_CONFIRMATION", "AWAITING_PAYMENT", "CONFIRMED");
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(8);
        assertThat(product.stockOf(sku).get("reserved").asInt()).isEqualTo(2);
        JsonNode charges = product.charges(id);
        assertThat(charges).hasSize(1);
        assertThat(charges.get(0).get("status").asText()).isEqualTo("CAPTURED");
        assertThat(charges.get(0).get("idempotencyKey").asText()).isEqualTo(id + ":charge");
        assertThat(charges.get(0).get("amountCents").asLong()).isEqualTo(2500);
        // Every status change is an event, in the order the saga went through them (docs/events.md).
        List<TopicReader.Message> events = TopicReader.messagesFor(infra.bootstrapServers(), Topics.ORDERS_EVENTS,
                List.of(id.toString()), 2, Duration.ofSeconds(20)).get(id.toString());
        // (One event per change, the first telling how the submission resolved; the older OrderConfirmed
        // is no longer written, ADR 0019.)
        assertThat(events).extracting(TopicReader.Message::type).containsOnly("OrderStatusChanged");
        assertThat(events.stream().map(e -> e.payload().get("status").asText())).containsExactly(
                "AWAITING_PAYMENT", "CONFIRMED");
        assertThat(events.get(1).payload().get("totalCents").asLong()).isEqualTo(2500);
        assertThat(TopicReader.typesFor(infra.bootstrapServers(), Topics.NOTIFICATIONS, id.toString(), 1,
                Duration.ofSeconds(20))).containsExactly("CustomerNotice");
    }

    @Test
    void shouldCancelAndReturnTheStockWhenPaymentIsDeclined() {
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"declineRate\":1.0}");

        UUID id = TestProduct.orderId(product.submit(key(), TestProduct.order("c-2", sku, 3, 100)));

        product.awaitStatus(id, "CANCELLED", Duration.ofSeconds(30));
        assertThat(product.order(id).get("history").findValuesAsText("status"))
                .containsSubsequence("AWAITING_PAYMENT", "COMPENSATING", "CANCELLED");
        // customers read stable codes in the history, never the participant's own words
        assertThat(Invariants.reasons(product, id)).containsExactly("started", "awaiting_reply", "payment_declined",
                "payment_declined");
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(5);
        assertThat(product.stockOf(sku).get("reserved").asInt()).isZero();
        assertThat(product.charges(id).findValuesAsText("status")).containsExactly("DECLINED");
    }

    @Test
    void shouldRejectWith422WhenOutOfStock() {
        String sku = sku();
        product.stock(sku, 1);

        HttpResponse<String> response = product.submit(key(), TestProduct.order("c-3", sku, 2, 100));

        assertThat(response.statusCode()).isEqualTo(422);
        assertThat(response.headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/problem+json"));
        UUID id = TestProduct.orderId(response);
        assertThat(product.status(id)).isEqualTo("REJECTED");
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(1);
        assertThat(product.charges(id)).isEmpty();
    }

    @Test
    void shouldCreateOneOrderWhenFiftyRequestsRaceWithOneKey() throws Exception {
        String sku = sku();
        product.stock(sku, 100);
        String key = key();
        String body = TestProduct.order("c-race", sku, 1, 100);
        ExecutorService pool = Executors.newFixedThreadPool(50);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<HttpResponse<String>>> futures = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            futures.add(pool.submit(() -> {
                go.await();
                return product.submit(key, body);
            }));
        }
        go.countDown();
        Set<UUID> accepted = new HashSet<>();
        Set<String> acceptedBodies = new HashSet<>();
        int original = 0;
        for (Future<HttpResponse<String>> f : futures) {
            HttpResponse<String> r = f.get(30, TimeUnit.SECONDS);
            // 503: fifty at once is more than a fresh product admits at speed; refused before any
            // work, that request made nothing (ADR 0021)
            assertThat(r.statusCode()).as(r.body()).isIn(202, 409, 503);
            if (r.statusCode() == 503) {
                assertThat(TestProduct.read(r.body()).get("type").asText()).isEqualTo("/problems/overloaded");
                assertThat(r.headers().firstValue("Retry-After")).isPresent();
            } else if (r.statusCode() == 202) {
                accepted.add(TestProduct.orderId(r));
                acceptedBodies.add(r.body());
                original += r.headers().firstValue("Idempotent-Replayed").isEmpty() ? 1 : 0;
            } else {
                // every conflict says why, as problem+json, and names no order of its own
                assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                        v -> assertThat(v).startsWith("application/problem+json"));
                assertThat(TestProduct.read(r.body()).get("type").asText()).isEqualTo("/problems/idempotency-key");
                assertThat(TestProduct.read(r.body()).has("orderId")).isFalse();
            }
        }
        pool.shutdown();

        // one order, answered the same to everyone who got an answer, and first-hand to exactly one
        assertThat(accepted).hasSize(1);
        assertThat(acceptedBodies).hasSize(1);
        assertThat(original).isEqualTo(1);
        assertThat(product.get(product.api("/orders?limit=1000")).findValuesAsText("customerId"))
                .filteredOn("c-race"::equals).hasSize(1);
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(99);
    }

    @Test
    void shouldReplayTheStoredAnswerAndRefuseADifferentBody() {
        String sku = sku();
        product.stock(sku, 10);
        String key = key();
        HttpResponse<String> first = product.submit(key, TestProduct.order("c-4", sku, 1, 100));

        HttpResponse<String> again = product.submit(key, TestProduct.order("c-4", sku, 1, 100));
        HttpResponse<String> other = product.submit(key, TestProduct.order("c-4", sku, 2, 100));

        assertThat(again.statusCode()).isEqualTo(first.statusCode()).isEqualTo(202);
        assertThat(again.body()).isEqualTo(first.body());
        assertThat(again.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(first.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(other.statusCode()).isEqualTo(422);
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(9);
    }

    private static String sku() {
        return "SKU-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }
}
