package org.sagas.reconciler;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Properties;
import java.util.UUID;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TestInputTopic;
import org.apache.kafka.streams.TestOutputTopic;
import org.apache.kafka.streams.TopologyTestDriver;
import org.apache.kafka.streams.test.TestRecord;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages;
import org.sagas.reconciler.internal.JsonSerde;

/** The reconciliation topology on a {@link TopologyTestDriver}, fed with records as the product writes them. */
final class TopologyFixture implements AutoCloseable {
    static final Duration GRACE = Duration.ofSeconds(30);
    static final Duration UNKNOWN_GRACE = Duration.ofSeconds(120);
    static final Duration REPLY_WINDOW = Duration.ofSeconds(90);

    final TopologyTestDriver driver;
    private final TestInputTopic<String, byte[]> orders;
    private final TestInputTopic<String, byte[]> commands;
    private final TestInputTopic<String, byte[]> replies;
    private final TestInputTopic<String, byte[]> charges;
    private final TestInputTopic<String, byte[]> reservations;
    private final TestOutputTopic<String, Finding> findings;
    private static final Instant START = Instant.parse("2026-12-01T10:00:00Z");
    private long seq = 100;
    private Instant clock = START;
    private Duration behind = Duration.ZERO;
    /** What the broker would say: records of a topic not fetched yet. */
    final java.util.Map<String, Long> lags = new java.util.concurrent.ConcurrentHashMap<>();

    TopologyFixture() {
        Properties props = new Properties();
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, "reconciler-test");
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "unused:9092");
        props.put(StreamsConfig.STATE_DIR_CONFIG, "target/reconciler-ttd-"
                + UUID.randomUUID());
        ReconcilerConfig config = new ReconcilerConfig(GRACE, UNKNOWN_GRACE, REPLY_WINDOW, Duration.ofSeconds(1));
        driver = new TopologyTestDriver(ReconcilerTopology.build(config, (topic, partition) ->
                lags.getOrDefault(topic, 0L)), props, START);
        orders = input(Topics.ORDERS_EVENTS);
        commands = input(Topics.PAYMENTS_COMMANDS);
        replies = input(Topics.PAYMENTS_EVENTS);
        charges = input(Topics.LEDGER_CHARGES);
        reservations = input(Topics.LEDGER_RESERVATIONS);
        findings = driver.createOutputTopic(Topics.RECONCILIATION_FINDINGS, new StringDeserializer(),
                new JsonSerde<>(Finding.class).deserializer());
    }

    private TestInputTopic<String, byte[]> input(String topic) {
        return driver.createInputTopic(topic, new StringSerializer(), new ByteArraySerializer());
    }

    /** An OrderStatusChanged with a fresh message id; returns that id. */
    String status(UUID order, String status, int version, long total) {
        String id = UUID.randomUUID().toString();
        status(order, status, version, total, id);
        return id;
    }

    void status(UUID order, String status, int version, long total, String messageId) {
        ObjectNode body = Json.mapper().createObjectNode().put("orderId", order.toString())
                .put("customerId", "c-1").put("status", status).put("reason", "test").put("totalCents", total)
                .put("currency", "EUR").put("sagaVersion", version);
        pipe(orders, order.toString(), OrderMessages.ORDER_STATUS_CHANGED, messageId, body);
    }

    String command(UUID order, long amount) {
        String id = UUID.randomUUID().toString();
        ObjectNode body = Json.mapper().createObjectNode().put("orderId", order.toString()).put("customerId", "c-1")
                .put("amountCents", amount).put("currency", "EUR").put("idempotencyKey", order + ":charge");
        pipe(commands, order.toString(), OrderMessages.CHARGE_PAYMENT, id, body);
        return id;
    }

    void reply(UUID order, String type) {
        ObjectNode body = Json.mapper().createObjectNode().put("orderId", order.toString())
                .put("idempotencyKey", order + ":charge");
        pipe(replies, order.toString(), type, UUID.randomUUID().toString(), body);
    }

    /** A charge as the provider's feed lists it; returns its cursor. */
    String charge(String orderId, String key, long amount, String status) {
        return charge(orderId, key, amount, status, "7." + (seq++));
    }

    String charge(String orderId, String key, long amount, String status, String cursor) {
        ObjectNode body = Json.mapper().createObjectNode().put("idempotencyKey", key).put("orderId", orderId)
                .put("amountCents", amount).put("currency", "EUR").put("status", status).put("cursor", cursor);
        charges.pipeInput(new TestRecord<>(key, bytes(body), new RecordHeaders(), now()));
        return cursor;
    }

    void reservation(String orderId, String key, String status) {
        ObjectNode body = Json.mapper().createObjectNode().put("key", key).put("orderId", orderId)
                .put("status", status).put("cursor", "9." + (seq++));
        body.putArray("lines");
        reservations.pipeInput(new TestRecord<>(key, bytes(body), new RecordHeaders(), now()));
    }

    /** Moves the wall clock (the punctuator checks due suspicions every second). */
    void advance(Duration d) {
        clock = clock.plus(d);
        driver.advanceWallClockTime(d);
    }

    List<Finding> findings() {
        return findings.readValuesToList();
    }

    List<TestRecord<String, Finding>> findingRecords() {
        return findings.readRecordsToList();
    }

    private void pipe(TestInputTopic<String, byte[]> topic, String key, String type, String messageId, ObjectNode body) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(Topics.MESSAGE_ID, messageId.getBytes(StandardCharsets.UTF_8));
        headers.add(Topics.MESSAGE_TYPE, type.getBytes(StandardCharsets.UTF_8));
        headers.add(Topics.CORRELATION_ID, key.getBytes(StandardCharsets.UTF_8));
        topic.pipeInput(new TestRecord<>(key, bytes(body), headers, now()));
    }

    /** Records carry the driver's wall-clock time, as the relay stamps them when it publishes. */
    private Instant now() {
        return clock.minus(behind);
    }

    /** From now on, records carry timestamps {@code behind} the wall clock: a backlog being replayed. */
    void replaying(Duration behind) {
        this.behind = behind;
    }

    private static byte[] bytes(ObjectNode body) {
        return Json.write(body).getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        driver.close();
    }
}
