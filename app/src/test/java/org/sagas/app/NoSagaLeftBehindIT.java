package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.testkit.RealInfrastructure;
import org.slf4j.LoggerFactory;

/**
 * No saga left behind (docs/design.md, "No saga left behind") on the whole product: participants that
 * refuse, replies that cannot be handled, charges that get lost. Every order ends in a terminal
 * status or a typed incident, the client gets a 4xx and the same answer on replay, nothing is
 * charged twice or left reserved. Tests that share settings run together (one restart each).
 */
@RealInfrastructure
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NoSagaLeftBehindIT extends GameDayLifecycle {
    private static ScriptedInventory scripted;
    private final ListAppender<ILoggingEvent> engineLog = new ListAppender<>();

    @BeforeAll
    static void scriptedInventory() {
        scripted = new ScriptedInventory();
    }

    @AfterAll
    static void stopScripted() {
        scripted.close();
    }

    private Map<String, String> onScriptedInventory() {
        return Map.of("SAGA_INVENTORY_URL", scripted.url());
    }

    @Test
    @Order(1)
    void shouldRejectAnOrderTheInventoryRefusesWith422AndAStableCodeAndNeverAskAgain() {
        // Given an inventory that refuses the reservation for good, for input the API accepted
        product.ensure(onScriptedInventory());
        scripted.reserve = ScriptedInventory.problem(400, "sku format not supported here");
        scripted.reserves.set(0);
        String key = Submissions.key();
        String body = TestProduct.order("c-refused", "SKU-ok", 1, 100);

        // When the order is submitted, and replayed with the same key
        HttpResponse<String> first = product.submit(key, body);
        HttpResponse<String> replay = product.submit(key, body);

        // Then the client gets 422 problem+json with a stable code (never a 5xx), and the same again
        assertThat(first.statusCode()).as(first.body()).isEqualTo(422);
        assertThat(first.headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/problem+json"));
        JsonNode problem = TestProduct.read(first.body());
        assertThat(problem.get("type").asText()).isEqualTo("/problems/order-refused");
        assertThat(problem.get("code").asText()).isEqualTo("order_refused");
        assertThat(first.body()).doesNotContain("sku format");
        assertThat(replay.statusCode()).isEqualTo(422);
        assertThat(replay.body()).isEqualTo(first.body());
        assertThat(replay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        // And the order is REJECTED with the code in its history, and the inventory is not asked again
        UUID id = TestProduct.orderId(first);
        assertThat(product.status(id)).isEqualTo("REJECTED");
        assertThat(Invariants.reasons(product, id)).containsExactly("started", "order_refused");
        await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(10)).until(() -> scripted.reserves.get() == 1);
    }

    @Test
    @Order(2)
    void shouldMakeARefusedReleaseAnIncidentCountedLoggedOnceAndListed() {
        // Given an inventory that reserves but refuses releases for good, and a provider that declines
        product.ensure(onScriptedInventory());
        scripted.reserve = ScriptedInventory.RESERVED;
        scripted.release = ScriptedInventory.problem(400, "unknown reservation");
        scripted.releases.set(0);
        product.paymentFaults("{\"declineRate\":1.0}");
        Logger logger = (Logger) LoggerFactory.getLogger(SagaEngine.class);
        engineLog.start();
        logger.addAppender(engineLog);
        try {
            // When an order is declined and its stock must be released
            HttpResponse<String> answer = product.submit(Submissions.key(), TestProduct.order("c-stuck", "SKU-x", 1,
                    100));
            assertThat(answer.statusCode()).isEqualTo(202);
            UUID id = TestProduct.orderId(answer);

            // Then it stays COMPENSATING (its stock is still held: true), as a typed incident
            await().atMost(Duration.ofSeconds(30)).until(() -> "PARTICIPANT_REFUSED".equals(incident(id)));
            assertThat(product.status(id)).isEqualTo("COMPENSATING");
            assertThat(Invariants.reasons(product, id)).containsExactly("started", "awaiting_reply",
                    "payment_declined", "participant_refused");
            // counted, listed by the README's query, logged once with the order and the cause,
            // and never tried again by itself
            await().atMost(Duration.ofSeconds(10)).until(() -> product.metrics().value("saga_incidents", "cause",
                    "PARTICIPANT_REFUSED") >= 1);
            assertThat(listedIncidents()).contains(id + " COMPENSATING PARTICIPANT_REFUSED");
            await().during(Duration.ofSeconds(6)).atMost(Duration.ofSeconds(10))
                    .until(() -> scripted.releases.get() == 1);
            assertThat(engineLog.list.stream().map(ILoggingEvent::getFormattedMessage)
                    .filter(m -> m.contains(id.toString()) && m.contains("incident PARTICIPANT_REFUSED"))).hasSize(1);
        } finally {
            logger.detachAppender(engineLog);
        }
    }

    @Test
    @Order(3)
    void shouldConfirmOrdersWhoseSkusAreAtTheLimitsTheApiAndTheInventoryShare() {
        // Given SKUs of 64 code points (128 UTF-16 units) and of one, stocked at the sandbox
        product.defaults();
        String longest = "\uD835\uDC9C".repeat(56) + UUID.randomUUID().toString().substring(0, 8);
        String shortest = "\u00e9";
        for (String sku : List.of(longest, shortest)) {
            product.put(product.inventory("/stock/" + encoded(sku)), "{\"available\":5}");
        }
        String body = "{\"customerId\":\"c-limits\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + longest
                + "\",\"quantity\":1,\"unitPriceCents\":100},{\"sku\":\"" + shortest
                + "\",\"quantity\":2,\"unitPriceCents\":100}]}";

        // When ordered
        HttpResponse<String> answer = product.submit(Submissions.key(), body);

        // Then both the API and the inventory take them, and the order is confirmed
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(202);
        UUID id = TestProduct.orderId(answer);
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(30));
        assertThat(product.get(product.inventory("/stock/" + encoded(longest))).get("reserved").asInt()).isEqualTo(1);
        Invariants.check(product, List.of(id));
    }

    @Test
    @Order(4)
    void shouldDeadLetterAPoisonReplyAsAnIncidentWhileTwoHundredOrdersOnTheSameConsumerComplete() {
        // Given a retry bound (35 s) longer than 200 orders take (a few seconds on two cores), and a saga whose replies cannot be handled
        // (its definition is gone, as after a deploy that removed it)
        product.ensure(Map.of("SAGA_CONSUMER_RETRY_MS", "35000"));
        UUID ghost = UUID.randomUUID();
        product.product().node().jdbi.useHandle(h -> h.createUpdate("INSERT INTO saga_instance (saga_id, saga_type,"
                + " status, step, label, data) VALUES (:id, 'ghost', 'AWAITING_REPLY', 'WAIT', 'GHOST_WAITING',"
                + " '{}'::jsonb)").bind("id", ghost).execute());
        try {
            poisonReplyAmongTwoHundredOrders(ghost);
        } finally {
            // The ghost is this test's own: a live saga of a type no build has would rightly stop every
            // later start of the product (docs/decisions/0025), so it goes whatever the test found.
            product.product().node().jdbi.useHandle(h -> {
                h.execute("DELETE FROM saga_history WHERE saga_id = ?", ghost);
                h.execute("DELETE FROM saga_instance WHERE saga_id = ?", ghost);
            });
        }
    }

    private void poisonReplyAmongTwoHundredOrders(UUID ghost) {
        String sku = Submissions.sku();
        product.stock(sku, 200);
        KafkaProbe kafka = new KafkaProbe(bootstrap);

        // When its reply arrives among the replies of 200 orders
        kafka.send(reply(ghost));
        // (from clients that retry a shed submission, as clients should: admission sheds when this test
        // JVM shares the cores with others, and admission is not what this test is about)
        List<Submissions.Answer> answers = Submissions.concurrentlyRetryingOverload(8,
                Collections.nCopies(200, TestProduct.order("c-200", sku, 1, 100)), product::submit, 5);

        // Then the 200 orders complete while the poison reply is still set aside, not waited for
        assertThat(answers).allSatisfy(a -> assertThat(a.status()).as("%s", a).isEqualTo(202));
        List<UUID> ids = Submissions.ids(answers);
        Invariants.awaitSettled(product, ids, Duration.ofSeconds(30));
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 200L));
        Invariants.check(product, ids);
        // (awaited: the reply consumer, restarted with the settings above, may join its group after the
        // orders are done, as it did in a test JVM that had run other classes first)
        await().atMost(Duration.ofSeconds(20)).until(() -> product.metrics().value("saga_consumer_waiting", "topic",
                Topics.PAYMENTS_EVENTS) > 0);
        assertThat(incident(ghost)).as("not given up on yet").isNull();

        // And after the bound it is dead-lettered with its reason, as its saga's incident
        List<ConsumerRecord<String, byte[]>> dead = kafka.read(Topics.deadLetter(Topics.PAYMENTS_EVENTS),
                Duration.ofSeconds(120), r -> ghost.toString().equals(r.key()));
        assertThat(dead).hasSize(1);
        assertThat(KafkaProbe.header(dead.get(0), Topics.DLT_REASON)).contains("kept failing").contains("ghost");
        await().atMost(Duration.ofSeconds(10)).until(() -> "POISON_REPLY".equals(incident(ghost)));
    }

    @Test
    @Order(5)
    void shouldSendALostChargeAgainUnderTheSameKeyAndConfirmOnce() {
        // Given a provider down for longer than a command is retried (2 s), so the charge command is
        // dead-lettered, and a payment step timeout of 3 s
        product.ensure(Map.of("SAGA_CONSUMER_RETRY_MS", "2000", "SAGA_PAYMENT_STEP_TIMEOUT_MS", "3000",
                "SAGA_RECONCILE_PERIOD_MS", "500", "SAGA_PAYMENT_RESEND_AFTER_MS", "1000",
                "SAGA_PAYMENT_BREAKER_OPEN_MS", "1000"));
        String sku = Submissions.sku();
        product.stock(sku, 1);
        product.paymentFaults("{\"down\":true}");

        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-lost", sku, 1, 900)));

        // Then the command goes to the dead-letter topic as the order's incident, and its payment is unknown
        await().atMost(Duration.ofSeconds(30)).until(() -> "COMMAND_DEAD_LETTERED".equals(incident(id)));
        product.awaitStatus(id, "PAYMENT_UNKNOWN", Duration.ofSeconds(30));
        assertThat(product.charges(id)).isEmpty();

        // When the provider comes back, the reconciler finds no charge and sends it again: one capture
        product.paymentFaults("{\"down\":false}");
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(30));
        assertThat(product.charges(id)).hasSize(1);
        assertThat(Invariants.reasons(product, id)).contains("command_dead_lettered", "step_timed_out",
                "command_resent");
        assertThat(incident(id)).isNull();
        Invariants.check(product, List.of(id));
    }

    @Test
    @Order(6)
    void shouldReleaseAReservationMadeAfterItsTimeoutBeforeRejectingWhenDegradedModeIsOff() {
        // Given degraded mode off, and an inventory that reserves after the client's timeout has passed
        product.ensure(Map.of("SAGA_DEGRADED_MODE", "false", "SAGA_INVENTORY_TIMEOUT_MS", "300"));
        String sku = Submissions.sku();
        product.stock(sku, 4);
        product.inventoryFaults(GameDay.inventoryLatency(700));

        // When an order is submitted
        HttpResponse<String> answer = product.submit(Submissions.key(), TestProduct.order("c-off", sku, 1, 100));

        // Then it is refused as inventory unavailable
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(503);
        assertThat(TestProduct.read(answer.body()).get("code").asText()).isEqualTo("inventory_unavailable");
        UUID id = TestProduct.orderId(answer);

        // And once inventory answers in time again, what it reserved late is released and the order
        // is REJECTED: nothing stays held
        product.healthy();
        product.awaitStatus(id, "REJECTED", Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> Invariants.assertStock(product, sku, 4, 0));
        assertThat(product.reservations(id).findValuesAsText("status")).doesNotContain("RESERVED");
        Invariants.check(product, List.of(id));
    }

    /** The incident cause of saga {@code id}, or null. */
    private static String incident(UUID id) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT incident_cause FROM saga_instance WHERE saga_id = :id").bind("id", id)
                .mapTo(String.class).findOne().orElse(null));
    }

    /** The README's query for incidents, each as "order status cause". */
    private static List<String> listedIncidents() {
        return product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT s.saga_id AS order_id, o.status, s.incident_cause, s.incident_at, s.step, s.incident_detail"
                        + " FROM saga_instance s LEFT JOIN orders o ON o.order_id = s.saga_id"
                        + " WHERE s.incident_cause IS NOT NULL ORDER BY s.incident_at")
                .map((rs, ctx) -> rs.getString("order_id") + " " + rs.getString("status") + " "
                        + rs.getString("incident_cause")).list());
    }

    private static ProducerRecord<String, byte[]> reply(UUID sagaId) {
        ProducerRecord<String, byte[]> r = new ProducerRecord<>(Topics.PAYMENTS_EVENTS, sagaId.toString(),
                ("{\"orderId\":\"" + sagaId + "\",\"idempotencyKey\":\"" + sagaId + ":charge\"}")
                        .getBytes(StandardCharsets.UTF_8));
        r.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
        r.headers().add(Topics.MESSAGE_TYPE, "PaymentCaptured".getBytes(StandardCharsets.UTF_8));
        r.headers().add(Topics.CORRELATION_ID, sagaId.toString().getBytes(StandardCharsets.UTF_8));
        return r;
    }

    private static String encoded(String segment) {
        return java.net.URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20");
    }
}
