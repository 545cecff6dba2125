package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.adapters.messaging.SagaReplyConsumer;
import org.sagas.adapters.payment.PaymentWorker;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderData;
import org.sagas.orchestrator.ordering.OrderLine;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** Redeliveries, poison messages, crashes and lost answers: nothing lost, nothing charged twice. */
@RealInfrastructure
class RecoveryIT {
    private TestProduct product;
    private KafkaProbe kafka;

    @BeforeEach
    void start(TestInfra infra) {
        product = TestProduct.shared(infra);
        kafka = new KafkaProbe(infra.bootstrapServers());
        product.healthy();
    }

    @AfterEach
    void heal() {
        product.healthy();
        product.defaults();
    }

    @Test
    void shouldHaveNoSecondEffectWhenEveryConsumedMessageIsRedelivered() {
        // Given a confirmed order
        String sku = sku();
        product.stock(sku, 10);
        UUID id = TestProduct.orderId(product.submit(key(), TestProduct.order("c-redeliver", sku, 1, 700)));
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(30));
        int history = product.order(id).get("history").size();
        ConsumerRecord<String, byte[]> charge = kafka.find(Topics.PAYMENTS_COMMANDS, id.toString(), "ChargePayment",
                Duration.ofSeconds(20)).orElseThrow();
        // (The payment worker shares the saga worker's process here: it handed its reply to the engine
        // directly, ADR 0019. The reply a worker elsewhere would publish is made up for its redelivery.)
        ProducerRecord<String, byte[]> captured = new ProducerRecord<>(Topics.PAYMENTS_EVENTS, id.toString(),
                ("{\"orderId\":\"" + id + "\",\"idempotencyKey\":\"" + id + ":charge\"}")
                        .getBytes(StandardCharsets.UTF_8));
        captured.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8))
                .add(Topics.MESSAGE_TYPE, "PaymentCaptured".getBytes(StandardCharsets.UTF_8))
                .add(Topics.CORRELATION_ID, id.toString().getBytes(StandardCharsets.UTF_8));
        assertThat(kafka.find(Topics.PAYMENTS_EVENTS, id.toString(), "PaymentCaptured", Duration.ofSeconds(2)))
                .as("no reply went through Kafka").isEmpty();

        // When the command and a reply are delivered again, and the command once more under a new id
        kafka.resend(charge);
        kafka.send(captured);
        kafka.send(captured);
        ProducerRecord<String, byte[]> copy = new ProducerRecord<>(charge.topic(), charge.key(), charge.value());
        charge.headers().forEach(h -> copy.headers().add(h));
        copy.headers().remove(Topics.MESSAGE_ID);
        copy.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
        kafka.send(copy);

        // Then, once both consumers have read everything, nothing changed: one charge, one reservation, same history
        await().atMost(Duration.ofSeconds(30)).until(() -> kafka.caughtUp(PaymentWorker.CONSUMER, Topics.PAYMENTS_COMMANDS)
                && kafka.caughtUp(SagaReplyConsumer.CONSUMER, Topics.PAYMENTS_EVENTS));
        assertThat(product.charges(id)).hasSize(1);
        assertThat(product.charges(id).get(0).get("status").asText()).isEqualTo("CAPTURED");
        assertThat(product.status(id)).isEqualTo("CONFIRMED");
        assertThat(product.order(id).get("history")).hasSize(history);
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(9);
    }

    @Test
    void shouldDeadLetterPoisonMessagesWithTheirReasonAndKeepConsuming() {
        // Given a command and a reply nobody can read
        String key = UUID.randomUUID().toString();
        kafka.send(new ProducerRecord<>(Topics.PAYMENTS_COMMANDS, key, "not json".getBytes(StandardCharsets.UTF_8)));
        ProducerRecord<String, byte[]> noId = new ProducerRecord<>(Topics.PAYMENTS_EVENTS, key,
                "{}".getBytes(StandardCharsets.UTF_8));
        noId.headers().add(Topics.MESSAGE_TYPE, "PaymentCaptured".getBytes(StandardCharsets.UTF_8));
        kafka.send(noId);

        // Then each lands on its dead-letter topic with the reason
        ConsumerRecord<String, byte[]> deadCommand = kafka.read(Topics.deadLetter(Topics.PAYMENTS_COMMANDS),
                Duration.ofSeconds(30), r -> key.equals(r.key())).get(0);
        ConsumerRecord<String, byte[]> deadReply = kafka.read(Topics.deadLetter(Topics.PAYMENTS_EVENTS),
                Duration.ofSeconds(30), r -> key.equals(r.key())).get(0);
        assertThat(KafkaProbe.header(deadCommand, Topics.DLT_REASON)).contains("message-id");
        assertThat(KafkaProbe.header(deadReply, Topics.DLT_REASON)).contains("message-id");

        // And the consumers go on with the next orders
        String sku = sku();
        product.stock(sku, 1);
        UUID id = TestProduct.orderId(product.submit(key(), TestProduct.order("c-after-poison", sku, 1, 100)));
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(30));
    }

    @Test
    void shouldChargeOnceWhenTheProviderTimesOutAfterCharging() {
        // Given a provider that charges and then loses its answer
        String sku = sku();
        product.stock(sku, 1);
        product.paymentFaults("{\"timeoutAfterCharge\":true}");

        UUID id = TestProduct.orderId(product.submit(key(), TestProduct.order("c-lost-answer", sku, 1, 4200)));

        // Then the worker's retry with the same key learns the outcome: confirmed, one capture
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(60));
        assertThat(product.charges(id)).hasSize(1);
        assertThat(product.charges(id).get(0).get("status").asText()).isEqualTo("CAPTURED");
    }

    @Test
    void shouldShowPaymentUnknownWhileTheProviderIsDownAndConfirmWhenItReturns() {
        // Given a provider that is down for longer than the payment step's timeout (2 s here)
        product.reconfigure(Map.of("SAGA_PAYMENT_STEP_TIMEOUT_MS", "2000"));
        String sku = sku();
        product.stock(sku, 1);
        product.paymentFaults("{\"down\":true}");

        UUID id = TestProduct.orderId(product.submit(key(), TestProduct.order("c-unknown", sku, 1, 300)));

        // Then the order shows the unknown outcome, visibly, and nothing is charged
        product.awaitStatus(id, "PAYMENT_UNKNOWN", Duration.ofSeconds(30));
        assertThat(product.charges(id)).isEmpty();

        // When the provider comes back, the pending command is charged and the order confirmed once
        product.paymentFaults("{\"down\":false}");
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(60));
        assertThat(product.charges(id)).hasSize(1);
    }

    @Test
    void shouldCompleteASagaWhoseApiDiedBetweenAcceptingAndReserving() {
        // Given a saga stored by an API process that died before it could reserve (lease 2 s)
        product.reconfigure(Map.of("SAGA_STEP_LEASE_MS", "2000"));
        String sku = sku();
        product.stock(sku, 3);
        UUID id = UUID.randomUUID();
        Node node = product.product().node();
        OrderData data = new OrderData(id, "c-orphan", "EUR", 500, java.util.List.of(new OrderLine(sku, 1, 500)));
        // (The order is its saga's row: the orders view shows it from here.)
        node.engine.start(node.orderSaga, id, data, h -> {});

        // Then, when its lease runs out, a worker runs the step and the saga completes
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(60));
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(2);
        assertThat(product.charges(id)).hasSize(1);
    }

    @Test
    void shouldCompleteSagasInFlightWhenEveryRoleRestarts() {
        // Given orders waiting on a slow provider
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"latencyMs\":1500}");
        UUID first = TestProduct.orderId(product.submit(key(), TestProduct.order("c-restart", sku, 1, 100)));
        UUID second = TestProduct.orderId(product.submit(key(), TestProduct.order("c-restart", sku, 1, 100)));

        // When every role stops mid-saga and starts again
        product.restart();
        product.paymentFaults("{\"latencyMs\":0}");

        // Then both orders complete, each charged once
        product.awaitStatus(first, "CONFIRMED", Duration.ofSeconds(60));
        product.awaitStatus(second, "CONFIRMED", Duration.ofSeconds(60));
        assertThat(product.charges(first)).hasSize(1);
        assertThat(product.charges(second)).hasSize(1);
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(3);
    }

    private static String sku() {
        return "SKU-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static String key() {
        return "key-" + UUID.randomUUID();
    }
}
