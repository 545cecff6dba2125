package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sagas.app.GameDay.SETTLE;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;

/**
 * Orders through Kafka (docs/events.md, "orders.commands"): a {@code PlaceOrder} or {@code
 * CancelOrder} takes the API's path and its outcome comes back on {@code orders.events}, correlated
 * with the command; the same command twice makes one order; a command that does not parse or
 * validate goes to the dead-letter topic with its reason, and nothing else happens.
 */
@RealInfrastructure
class OrderCommandsIT extends GameDayLifecycle {
    private static final Duration WITHIN = Duration.ofSeconds(60);

    @Test
    void shouldPlaceAnOrderFromACommandAndAnswerItOnOrdersEvents() {
        // Given stock
        String sku = Submissions.sku();
        product.stock(sku, 5);
        String reference = "ref-" + UUID.randomUUID();

        // When a shop places an order through orders.commands, with fields this build does not know
        String body = place(reference, Submissions.key(), "c-kafka", sku, 2);
        body = "{\"giftWrap\":true," + body.substring(1).replace("\"quantity\"", "\"colour\":\"blue\",\"quantity\"");
        UUID command = send(reference, "PlaceOrder", body);

        // Then its outcome names the order, accepted as the API would, and the order goes on to be confirmed
        JsonNode accepted = outcome(command, "OrderCommandAccepted");
        assertThat(accepted.path("clientReference").asText()).isEqualTo(reference);
        assertThat(accepted.path("command").asText()).isEqualTo("PlaceOrder");
        assertThat(accepted.path("status").asText()).isEqualTo("AWAITING_PAYMENT");
        assertThat(accepted.path("replayed").asBoolean()).isFalse();
        UUID order = UUID.fromString(accepted.path("orderId").asText());
        product.awaitStatus(order, "CONFIRMED", SETTLE);
        Invariants.assertStock(product, sku, 3, 2);
        Invariants.check(product, List.of(order));
    }

    @Test
    void shouldMakeOneOrderOfACommandDeliveredTwiceOrSentAgainUnderItsKey() {
        // Given stock
        String sku = Submissions.sku();
        product.stock(sku, 5);
        String reference = "ref-" + UUID.randomUUID();
        String key = Submissions.key();
        String body = place(reference, key, "c-kafka-twice", sku, 1);

        // When the same record is delivered twice, and the command is then sent again as a new message
        UUID first = UUID.randomUUID();
        send(reference, "PlaceOrder", body, first);
        send(reference, "PlaceOrder", body, first);
        UUID again = send(reference, "PlaceOrder", body);

        // Then one order: the resend answers the same order as replayed, the redelivery publishes nothing
        JsonNode original = outcome(first, "OrderCommandAccepted");
        JsonNode replayed = outcome(again, "OrderCommandAccepted");
        assertThat(replayed.path("orderId").asText()).isEqualTo(original.path("orderId").asText());
        assertThat(replayed.path("replayed").asBoolean()).isTrue();
        assertThat(outcomes(List.of(first), 1, Duration.ofSeconds(2)).get(first.toString())).hasSize(1);
        long keys = product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM idempotency_keys WHERE idem_key = :k").bind("k", key).mapTo(Long.class).one());
        assertThat(keys).isEqualTo(1);
        UUID order = UUID.fromString(original.path("orderId").asText());
        product.awaitStatus(order, "CONFIRMED", SETTLE);
        Invariants.assertStock(product, sku, 4, 1);
    }

    @Test
    void shouldDeadLetterACommandThatDoesNotParseOrBreaksItsSchemaWithItsReasonAndPlaceNothing() {
        // Given commands that are not JSON, lack their key, or order a quantity of zero
        String sku = Submissions.sku();
        product.stock(sku, 5);
        long ordersBefore = GameDay.storedOrders(product);
        String notJson = "ref-" + UUID.randomUUID();
        String noKey = "ref-" + UUID.randomUUID();
        String zero = "ref-" + UUID.randomUUID();
        double violationsBefore = product.metrics().value("saga_contract_violations_total", "topic",
                Topics.ORDERS_COMMANDS, "message_type", "PlaceOrder");

        // When they are sent
        UUID notJsonCommand = send(notJson, "PlaceOrder", "{\"customerId\":");
        UUID noKeyCommand = send(noKey, "PlaceOrder", place(noKey, null, "c-kafka-bad", sku, 1));
        UUID zeroCommand = send(zero, "PlaceOrder", place(zero, Submissions.key(), "c-kafka-bad", sku, 0));

        // Then each is on the dead-letter topic with why, and no order was stored
        String dlt = Topics.deadLetter(Topics.ORDERS_COMMANDS);
        assertThat(TopicReader.headersFor(bootstrap, dlt, notJson, Topics.DLT_REASON, 1, WITHIN))
                .singleElement().asString().contains("JSON");
        assertThat(TopicReader.headersFor(bootstrap, dlt, noKey, Topics.DLT_REASON, 1, WITHIN))
                .singleElement().asString().contains("idempotencyKey");
        assertThat(TopicReader.headersFor(bootstrap, dlt, zero, Topics.DLT_REASON, 1, WITHIN))
                .singleElement().asString().contains("quantity");
        // the two that break the schema as such, the one that is not JSON as its handler's refusal
        assertThat(TopicReader.headersFor(bootstrap, dlt, zero, "dlt-cause", 1, WITHIN))
                .singleElement().asString().isEqualTo("SCHEMA_VIOLATION");
        assertThat(TopicReader.headersFor(bootstrap, dlt, noKey, "dlt-cause", 1, WITHIN))
                .singleElement().asString().isEqualTo("SCHEMA_VIOLATION");
        assertThat(TopicReader.headersFor(bootstrap, dlt, notJson, "dlt-cause", 1, WITHIN))
                .singleElement().asString().isEqualTo("REJECTED");
        assertThat(product.metrics().value("saga_contract_violations_total", "topic", Topics.ORDERS_COMMANDS,
                "message_type", "PlaceOrder")).isEqualTo(violationsBefore + 2);
        // And each sender, whose reference and message-id the record carries, is told: refused as the API
        // refuses a bad request, correlated to its command
        Map<UUID, String> commands = Map.of(notJsonCommand, notJson, noKeyCommand, noKey, zeroCommand, zero);
        commands.forEach((command, reference) -> {
            JsonNode refused = outcome(command, "OrderCommandRefused");
            assertThat(refused.path("type").asText()).isEqualTo("invalid-request");
            assertThat(refused.path("httpStatus").asInt()).isEqualTo(400);
            assertThat(refused.path("clientReference").asText()).isEqualTo(reference);
            assertThat(refused.path("orderId").isNull()).isTrue();
            assertThat(refused.path("detail").asText()).contains(Topics.deadLetter(Topics.ORDERS_COMMANDS));
        });
        assertThat(GameDay.storedOrders(product)).isEqualTo(ordersBefore);
        Invariants.assertStock(product, sku, 5, 0);
    }

    @Test
    void shouldHoldACommandWhileAdmissionRefusesItAndPlaceItOnceItAdmits() {
        // Given inventory down and the pending-confirmation cap reached by one parked order
        product.ensure(GameDay.REALISTIC);
        long left = GameDay.pendingOrders(product);
        int cap = (int) left + 1;
        product.ensure(GameDay.realisticWith("SAGA_PENDING_CAP", Integer.toString(cap)));
        try {
            String sku = Submissions.sku();
            product.stock(sku, 5);
            product.inventoryFaults(GameDay.INVENTORY_DOWN);
            Submissions.Answer parked = Submissions.one(product::submitWithinApiBudget,
                    TestProduct.order("c-kafka-held", sku, 1, 100));
            assertThat(parked.orderStatus()).as("%s", parked).isEqualTo("PENDING_CONFIRMATION");
            org.awaitility.Awaitility.await("pending gauge at the cap").atMost(Duration.ofSeconds(10)).until(
                    () -> product.metrics().value("saga_orders", "status", "PENDING_CONFIRMATION") >= cap);
            double heldBefore = product.metrics().value("saga_order_commands_held_total");

            // When a shop places an order through orders.commands
            String reference = "ref-" + UUID.randomUUID();
            UUID command = send(reference, "PlaceOrder", place(reference, Submissions.key(), "c-kafka-held", sku, 1));

            // Then it is held, not refused: no outcome while the cap holds, the hold counted
            org.awaitility.Awaitility.await("held").atMost(Duration.ofSeconds(20))
                    .until(() -> product.metrics().value("saga_order_commands_held_total") > heldBefore);
            assertThat(outcomes(List.of(command), 1, Duration.ofSeconds(2)).get(command.toString())).isNullOrEmpty();

            // And once inventory is back and the pending order drains, it is placed
            product.healthy();
            JsonNode accepted = outcome(command, "OrderCommandAccepted");
            assertThat(accepted.path("status").asText()).isEqualTo("AWAITING_PAYMENT");
            UUID order = UUID.fromString(accepted.path("orderId").asText());
            Invariants.awaitSettled(product, List.of(order, parked.orderId()), SETTLE);
            assertThat(Invariants.statuses(product, List.of(order, parked.orderId())))
                    .containsExactly(Map.entry("CONFIRMED", 2L));
        } finally {
            product.ensure(GameDay.REALISTIC);
        }
    }

    @Test
    void shouldCancelAnOrderFromACommandAndRefuseAConfirmedOneAsTheApiDoes() {
        // Given an order awaiting a slow payment
        String sku = Submissions.sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"latencyMs\":3000}");
        UUID order = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-kafka-cancel", sku, 1,
                100)));
        String reference = "ref-" + UUID.randomUUID();

        // When its customer cancels it through orders.commands, and then again under a new key once it ended
        UUID cancel = send(reference, "CancelOrder", cancel(reference, Submissions.key(), order, "c-kafka-cancel"));
        JsonNode cancelled = outcome(cancel, "OrderCommandAccepted");

        // Then it is cancelled, its stock released
        assertThat(cancelled.path("orderId").asText()).isEqualTo(order.toString());
        assertThat(cancelled.path("status").asText()).isEqualTo("CANCELLED");
        assertThat(product.status(order)).isEqualTo("CANCELLED");
        Invariants.assertStock(product, sku, 5, 0);

        // And a confirmed order, and another customer's, are refused with the API's problem types
        product.healthy();
        UUID confirmed = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-kafka-cancel", sku,
                1, 100)));
        product.awaitStatus(confirmed, "CONFIRMED", SETTLE);
        UUID late = send(reference, "CancelOrder", cancel(reference, Submissions.key(), confirmed, "c-kafka-cancel"));
        UUID stranger = send(reference, "CancelOrder", cancel(reference, Submissions.key(), confirmed, "c-other"));
        JsonNode refused = outcome(late, "OrderCommandRefused");
        assertThat(refused.path("type").asText()).isEqualTo("order-confirmed");
        assertThat(refused.path("httpStatus").asInt()).isEqualTo(409);
        assertThat(outcome(stranger, "OrderCommandRefused").path("type").asText()).isEqualTo("not-found");
        assertThat(product.status(confirmed)).isEqualTo("CONFIRMED");
    }

    private static String place(String reference, String key, String customer, String sku, int quantity) {
        String order = TestProduct.order(customer, sku, quantity, 100);
        return "{\"clientReference\":\"" + reference + "\"," + (key == null ? "" : "\"idempotencyKey\":\"" + key
                + "\",") + order.substring(1);
    }

    private static String cancel(String reference, String key, UUID order, String customer) {
        return "{\"clientReference\":\"" + reference + "\",\"idempotencyKey\":\"" + key + "\",\"orderId\":\"" + order
                + "\",\"customerId\":\"" + customer + "\"}";
    }

    private static UUID send(String reference, String type, String body) {
        UUID id = UUID.randomUUID();
        send(reference, type, body, id);
        return id;
    }

    /** A command as a client publishes it: key = its reference, the envelope's headers. */
    private static void send(String reference, String type, String body, UUID messageId) {
        ProducerRecord<String, String> record = new ProducerRecord<>(Topics.ORDERS_COMMANDS, reference, body);
        record.headers().add(Topics.MESSAGE_ID, messageId.toString().getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_TYPE, type.getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.CORRELATION_ID, reference.getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(product.settings().kafka().config(),
                new StringSerializer(), new StringSerializer())) {
            producer.send(record).get(10, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    /** The one outcome of {@code command}, of message type {@code type}. */
    private static JsonNode outcome(UUID command, String type) {
        List<TopicReader.Message> found = outcomes(List.of(command), 1, WITHIN).get(command.toString());
        assertThat(found).as("outcome of command %s", command).isNotNull().hasSize(1);
        assertThat(found.get(0).type()).isEqualTo(type);
        return found.get(0).payload();
    }

    /** The messages on orders.events correlated with each of {@code commands}, read until each has {@code each}. */
    private static Map<String, List<TopicReader.Message>> outcomes(List<UUID> commands, int each, Duration within) {
        Map<String, List<TopicReader.Message>> found = new java.util.HashMap<>();
        List<String> wanted = commands.stream().map(UUID::toString).toList();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "test-outcomes-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(Topics.ORDERS_EVENTS));
            long end = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < end && !(found.keySet().containsAll(wanted)
                    && found.values().stream().allMatch(l -> l.size() >= each))) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    Header correlation = r.headers().lastHeader(Topics.CORRELATION_ID);
                    String id = correlation == null ? "" : new String(correlation.value(), StandardCharsets.UTF_8);
                    if (wanted.contains(id)) {
                        String type = new String(r.headers().lastHeader(Topics.MESSAGE_TYPE).value(),
                                StandardCharsets.UTF_8);
                        found.computeIfAbsent(id, k -> new ArrayList<>()).add(new TopicReader.Message(type,
                                TestProduct.read(r.value())));
                    }
                }
            }
        }
        return found;
    }
}
