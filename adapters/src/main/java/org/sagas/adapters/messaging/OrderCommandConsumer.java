package org.sagas.adapters.messaging;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.http.InvalidRequest;
import org.sagas.orchestrator.http.OrderCommands;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.Limits;
import org.sagas.orchestrator.persistence.Inbox;
import org.sagas.orchestrator.persistence.OutboxWriter;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes {@code orders.commands} (docs/events.md) in the api role: each {@code PlaceOrder} or
 * {@code CancelOrder} goes through {@link OrderCommands} — the API's validation, Idempotency-Key,
 * admission and saga — and its outcome is written to the outbox for {@code orders.events},
 * correlated with the command's {@code message-id}. A command that does not parse or validate goes
 * to {@code orders.commands.dlt} with the reason; one whose handling keeps failing (the database) is
 * retried, then dead-lettered the same way. A redelivered command is answered by its key (no second
 * order) and, the inbox recording its first outcome, publishes nothing again. Thread-safe.
 */
public final class OrderCommandConsumer implements AutoCloseable {
    public static final String CONSUMER = "order-commands";
    public static final String ACCEPTED = "OrderCommandAccepted";
    public static final String REFUSED = "OrderCommandRefused";
    /**
     * The inbox name under which a dead-lettered command's refusal is recorded: apart from the
     * consumer's own, so that a command an operator redrives still publishes the outcome it then has.
     */
    static final String DEAD_LETTERED = CONSUMER + "-dead-lettered";
    private static final Logger log = LoggerFactory.getLogger(OrderCommandConsumer.class);

    /** Where the consumer reads and how hard it tries ({@code retryFor}: see {@link ConsumerLoop}). */
    public record Config(KafkaConnection kafka, int threads, Duration retryFor, MeterRegistry registry) {}

    private final OrderCommands commands;
    private final Jdbi jdbi;
    private final Runnable afterOutboxWrite;
    private final List<ConsumerLoop> loops;
    private final Counter held;
    private final Counter unanswered;

    /** @param afterOutboxWrite called after an outcome was committed (wakes an in-process relay) */
    public OrderCommandConsumer(OrderCommands commands, Jdbi jdbi, Runnable afterOutboxWrite, Config config) {
        this.commands = commands;
        this.jdbi = jdbi;
        this.afterOutboxWrite = afterOutboxWrite;
        this.held = Counter.builder("saga.order.commands.held")
                .description("Times an order command was held because admission refused it for now (overload,"
                        + " pending caps): consumption waited instead of refusing it").register(config.registry());
        this.loops = IntStream.range(0, config.threads()).mapToObj(i -> new ConsumerLoop(config.kafka(), CONSUMER,
                Topics.ORDERS_COMMANDS, this::handle, ConsumerLoop.BatchGate.NONE, config.registry(),
                config.retryFor(), this::answerDeadLetter).fairShare(OrderCommandConsumer::clientOf))
                .toList();
        this.unanswered = Counter.builder("saga.order.commands.dead.lettered.unanswered")
                .description("Order commands dead-lettered without an outcome event: no reply address (no client"
                        + " reference as key, no message-id, or not a command type)").register(config.registry());
    }

    /**
     * Whose a command is, for the loop's fair share: its customer, the client the API's rules scope it
     * to (OrderCommands); a command that does not say is a client of its own (its handler refuses it).
     */
    static String clientOf(ConsumerRecord<String, byte[]> record) {
        try {
            com.fasterxml.jackson.databind.JsonNode customer = record.value() == null ? null
                    : org.sagas.orchestrator.Json.mapper().readTree(record.value()).get("customerId");
            return customer != null && customer.isTextual() ? customer.asText() : "";
        } catch (java.io.IOException e) {
            return "";
        }
    }

    public OrderCommandConsumer start() {
        loops.forEach(ConsumerLoop::start);
        return this;
    }

    /** One command after the other: each runs its reservation while the batch waits, as a request would. */
    List<ConsumerLoop.Rejected> handle(List<ConsumerRecord<String, byte[]>> records) {
        List<ConsumerLoop.Rejected> rejected = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            IncomingMessage command;
            OrderCommands.Outcome outcome;
            try {
                command = ParsedMessage.parse(record);
                outcome = admitted(command);
            } catch (PoisonMessage poison) {
                rejected.add(new ConsumerLoop.Rejected(record, poison.getMessage()));
                continue;
            } catch (InvalidRequest invalid) {
                rejected.add(new ConsumerLoop.Rejected(record, "invalid " + invalid.field() + ": "
                        + invalid.getMessage()));
                continue;
            }
            publish(command, outcome);
        }
        return rejected;
    }

    /**
     * The command's outcome once admission takes it: while it is {@link OrderCommands.Held} the
     * consumer holds (this batch waits, so lag grows in the topic, which holds the orders), offering it
     * again after its {@code Retry-After}; held longer than {@link #MAX_HOLD} it is set aside, and the
     * loop retries it, then dead-letters it with the reason (counted, logged with the reference).
     */
    private OrderCommands.Outcome admitted(IncomingMessage command) {
        long since = System.nanoTime();
        OrderCommands.Outcome outcome = commands.handle(command.type(), command.payload());
        while (outcome instanceof OrderCommands.Held held) {
            this.held.increment();
            if (System.nanoTime() - since > MAX_HOLD.toNanos()) {
                throw new IllegalStateException("held " + MAX_HOLD.toSeconds() + " s by admission (" + held.type()
                        + ": " + held.detail() + ")");
            }
            log.warn("command {} for {} held: admission refuses it for now ({}); offered again in {} s", command
                    .messageId(), held.clientReference(), held.type(), held.retryAfterSeconds());
            try {
                Thread.sleep(Math.max(250, Math.min(5_000, held.retryAfterSeconds() * 1000L)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while held by admission", e);
            }
            outcome = commands.handle(command.type(), command.payload());
        }
        return outcome;
    }

    /** The longest one command holds its batch before it is set aside. */
    static final Duration MAX_HOLD = Duration.ofSeconds(30);

    /** The outcome, once per command: the inbox row and the outbox row commit together. */
    private void publish(IncomingMessage command, OrderCommands.Outcome outcome) {
        if (!publishOnce(CONSUMER, command.messageId(), outcome)) {
            log.info("command {} ({}) delivered again: answered by its key, its outcome already published",
                    command.messageId(), command.type());
        }
    }

    /**
     * A command about to be dead-lettered is answered too, where it says whom to answer (its key, the
     * client's reference; its {@code message-id}, the correlation; a command type): an
     * {@code OrderCommandRefused} as the API would refuse it — {@code invalid-request} (400) for what
     * does not parse or breaks its schema or rules, {@code overloaded} (503) for what the product could
     * not carry out in the consumer's retry time — once per command. One without a reply address is
     * counted and logged; the dead letter is its record either way.
     */
    void answerDeadLetter(ConsumerRecord<String, byte[]> record, String reason, ConsumerLoop.DeadLetterCause cause) {
        String type = ParsedMessage.header(record, Topics.MESSAGE_TYPE);
        java.util.Optional<UUID> messageId = SagaReplyConsumer.sagaId(ParsedMessage.header(record, Topics.MESSAGE_ID));
        String reference = record.key();
        if (messageId.isEmpty() || !(OrderCommands.PLACE_ORDER.equals(type) || OrderCommands.CANCEL_ORDER.equals(type))
                || reference == null || reference.length() > Limits.MAX_KEY || !Limits.isApiKeyText(reference)) {
            unanswered.increment();
            log.warn("{}/{}@{} dead-lettered without an outcome event: no reply address (key {}, message-id {},"
                    + " type {})", record.topic(), record.partition(), record.offset(), reference,
                    ParsedMessage.header(record, Topics.MESSAGE_ID), type);
            return;
        }
        boolean failing = cause == ConsumerLoop.DeadLetterCause.FAILING;
        OrderCommands.Refused refused = new OrderCommands.Refused(reference, type, null,
                failing ? "overloaded" : "invalid-request", failing ? 503 : 400,
                "dead-lettered to " + Topics.deadLetter(Topics.ORDERS_COMMANDS) + " (" + cause + "): " + reason);
        if (publishOnce(DEAD_LETTERED, messageId.get(), refused)) {
            log.info("command {} for {} dead-lettered ({}): refusal published on {}", messageId.get(), reference,
                    cause, Topics.ORDERS_EVENTS);
        }
    }

    /**
     * Writes {@code outcome} to the outbox, correlated to {@code commandId}, unless the inbox
     * {@code inbox} has seen that command: the inbox row and the outbox row commit together.
     *
     * @return whether it was written now (and the relay woken)
     */
    private boolean publishOnce(String inbox, UUID commandId, OrderCommands.Outcome outcome) {
        boolean first = jdbi.inTransaction(h -> {
            if (Inbox.firstDeliveries(h, inbox, List.of(commandId)).isEmpty()) {
                return false;
            }
            OutboxWriter.append(h, List.of(message(outcome)), commandId.toString());
            return true;
        });
        if (first) {
            afterOutboxWrite.run();
        }
        return first;
    }

    /** On orders.events, keyed by the order when there is one (as its status events), else the reference. */
    private static OutgoingMessage message(OrderCommands.Outcome outcome) {
        if (outcome instanceof OrderCommands.Accepted accepted) {
            return new OutgoingMessage(Topics.ORDERS_EVENTS, accepted.orderId().toString(), ACCEPTED, accepted);
        }
        OrderCommands.Refused refused = (OrderCommands.Refused) outcome;
        String key = refused.orderId() != null ? refused.orderId().toString() : refused.clientReference();
        return new OutgoingMessage(Topics.ORDERS_EVENTS, key, REFUSED, refused);
    }

    @Override
    public void close() {
        ConsumerLoop.closeAll(loops);
    }
}
