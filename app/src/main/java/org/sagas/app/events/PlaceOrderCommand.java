package org.sagas.app.events;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.OrderCommands;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.MessageContracts;
import org.sagas.orchestrator.messaging.Topics;

/**
 * {@code ./sagas events place}: one {@code PlaceOrder} on {@code orders.commands} (docs/events.md),
 * held to its contract before it is sent (a command that breaks it is refused here, nothing sent),
 * then the outcome event on {@code orders.events} whose {@code correlation-id} is the command's
 * {@code message-id}, printed as a line and as its body.
 */
public final class PlaceOrderCommand {
    /** The command's body, as its schema (orders.commands/PlaceOrder) states it. */
    public record PlaceOrder(String customerId, String currency, List<Line> lines, String idempotencyKey,
            String clientReference) {}

    public record Line(String sku, int quantity, long unitPriceCents) {}

    /** What happened to a command. */
    public sealed interface Outcome permits Answered, NoAnswer {}

    /** The outcome event correlated to the command ({@code OrderCommandAccepted} or {@code OrderCommandRefused}). */
    public record Answered(String type, JsonNode body, String line) implements Outcome {
        public boolean accepted() {
            return type.equals("OrderCommandAccepted");
        }
    }

    /** No outcome within the wait (the api role not running, or far behind). */
    public record NoAnswer(Duration waited) implements Outcome {}

    private PlaceOrderCommand() {}

    /**
     * @return 0 accepted, 1 refused or no outcome in time, 2 the command breaks its contract (nothing sent)
     */
    public static int run(KafkaConnection kafka, PlaceOrder order, Duration timeout, PrintStream out,
            PrintStream err) {
        MessageContracts.Verdict verdict = check(order);
        if (verdict instanceof MessageContracts.Violation v) {
            err.println("sagas events place: the command breaks its contract, nothing sent: " + v.reason());
            return 2;
        }
        UUID messageId = UUID.randomUUID();
        out.println("sent PlaceOrder " + messageId + " (reference " + order.clientReference() + ", idempotency key "
                + order.idempotencyKey() + ") to " + Topics.ORDERS_COMMANDS + "; waiting for its outcome");
        Outcome outcome;
        try {
            outcome = place(kafka, order, messageId, timeout);
        } catch (RuntimeException e) {
            err.println("sagas events place: " + e.getMessage());
            return 1;
        }
        if (outcome instanceof Answered answered) {
            out.println(answered.line());
            out.println(answered.body().toPrettyString());
            return answered.accepted() ? 0 : 1;
        }
        err.println("sagas events place: no outcome on " + Topics.ORDERS_EVENTS + " within " + timeout.toSeconds()
                + " s (is the api role running? the command stays in the topic and is answered when it is)");
        return 1;
    }

    /** The command held to the latest PlaceOrder schema. */
    public static MessageContracts.Verdict check(PlaceOrder order) {
        return MessageContracts.standard().check(Topics.ORDERS_COMMANDS, OrderCommands.PLACE_ORDER,
                Json.write(order).getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Sends the command with {@code messageId} and waits up to {@code timeout} for its outcome.
     *
     * @throws IllegalStateException when Kafka refused the command or cannot be read
     */
    public static Outcome place(KafkaConnection kafka, PlaceOrder order, UUID messageId, Duration timeout) {
        // The reader's start is fixed before the command is sent: its outcome cannot come before it.
        try (OrderEventsReader reader = new OrderEventsReader(kafka, false)) {
            send(kafka, order, messageId);
            long end = System.nanoTime() + timeout.toNanos();
            while (System.nanoTime() - end < 0) {
                for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(250))) {
                    if (messageId.toString().equals(OrderEventLine.header(r, Topics.CORRELATION_ID))) {
                        return new Answered(OrderEventLine.header(r, Topics.MESSAGE_TYPE), Json.read(
                                new String(r.value(), StandardCharsets.UTF_8), JsonNode.class), OrderEventLine.format(r));
                    }
                }
            }
            return new NoAnswer(timeout);
        }
    }

    private static void send(KafkaConnection kafka, PlaceOrder order, UUID messageId) {
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.ORDERS_COMMANDS, order.clientReference(),
                Json.write(order).getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_ID, messageId.toString().getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_TYPE, OrderCommands.PLACE_ORDER.getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.CORRELATION_ID, order.clientReference().getBytes(StandardCharsets.UTF_8));
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(kafka.config(Map.of(
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)),
                new StringSerializer(), new ByteArraySerializer())) {
            producer.send(record).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while sending the command", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Kafka did not take the command: " + e, e);
        }
    }
}
