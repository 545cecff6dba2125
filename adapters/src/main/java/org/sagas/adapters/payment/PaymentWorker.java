package org.sagas.adapters.payment;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.UUID;
import java.util.function.Function;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jdbi.v3.core.Jdbi;
import org.sagas.adapters.http.ParticipantError;
import org.sagas.adapters.messaging.ConsumerLoop;
import org.sagas.adapters.messaging.ParsedMessage;
import org.sagas.adapters.messaging.PoisonMessage;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages;
import org.sagas.orchestrator.ordering.OrderMessages.ChargePayment;
import org.sagas.orchestrator.ordering.OrderMessages.RefundPayment;
import org.sagas.orchestrator.persistence.Inbox;
import org.sagas.orchestrator.persistence.OutboxWriter;
import org.sagas.orchestrator.ordering.PaymentProvider;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes {@code payments.commands}, charges the provider with the command's idempotency key and
 * publishes the outcomes to {@code payments.events} through the outbox, recording the commands'
 * message ids in the inbox in the same transaction (one for each batch the consumer hands over).
 * A redelivered command has no second effect: the inbox skips it, and the provider answers a
 * repeated key from its ledger. A command that cannot be parsed, or that the provider refuses as
 * wrong (400, 422), goes to {@code payments.commands.dlt} with the reason.
 *
 * <p>A {@code RefundPayment} (an operator cancelled an order whose charge was under way or
 * captured) refunds under its own key once the batch's charges ended, so a charge the same order
 * asked for earlier is always settled first; a provider with no charge under the key took nothing,
 * and there is nothing to refund. Thread-safe.
 */
public final class PaymentWorker implements AutoCloseable {
    public static final String CONSUMER = "payment-worker";
    /** The longest idempotency key a provider takes (as the API's {@code Idempotency-Key}). */
    static final int MAX_KEY_LENGTH = 255;
    private static final Logger log = LoggerFactory.getLogger(PaymentWorker.class);

    private final Jdbi jdbi;
    private final Function<ChargePayment, PaymentProvider.Charge> charge;
    private final Function<RefundPayment, PaymentProvider.Charge> refund;
    private final Runnable afterOutboxWrite;
    private final List<ConsumerLoop> loops;
    /** Runs the provider calls of a batch side by side; as many threads as the provider's bulkhead has permits. */
    private final ExecutorService charging;

    /**
     * @param charge calls the provider (through the resilience stack); throws when it failed
     * @param refund refunds at the provider (through the resilience stack); throws when it failed
     * @param threads consumers in the group; at most the topic's partition count are busy
     * @param chargingThreads provider calls of a batch made side by side: the provider bulkhead's permits
     * @param beforeEachBatch see {@link ConsumerLoop}
     */
    public PaymentWorker(Jdbi jdbi, String bootstrapServers, String group, int threads, int chargingThreads,
            Function<ChargePayment, PaymentProvider.Charge> charge,
            Function<RefundPayment, PaymentProvider.Charge> refund, Runnable afterOutboxWrite,
            Runnable beforeEachBatch, io.micrometer.core.instrument.MeterRegistry registry) {
        this.jdbi = jdbi;
        this.charging = org.sagas.orchestrator.lifecycle.Threads.pool("payment-charge", chargingThreads);
        this.charge = charge;
        this.refund = refund;
        this.afterOutboxWrite = afterOutboxWrite;
        this.loops = java.util.stream.IntStream.range(0, threads)
                .mapToObj(i -> new ConsumerLoop(bootstrapServers, group, Topics.PAYMENTS_COMMANDS, this::handle,
                        beforeEachBatch, registry))
                .toList();
    }

    public PaymentWorker start() {
        loops.forEach(ConsumerLoop::start);
        return this;
    }

    /** A command of the batch whose provider call is under way. */
    private record Charging(ConsumerRecord<String, byte[]> record, ChargePayment command,
            CompletableFuture<PaymentProvider.Charge> outcome) {}

    List<ConsumerLoop.Rejected> handle(List<ConsumerRecord<String, byte[]>> records) {
        List<ConsumerLoop.Rejected> rejected = new ArrayList<>();
        Map<UUID, Charging> calls = new LinkedHashMap<>();
        List<Refunding> refunds = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                IncomingMessage message = ParsedMessage.parse(record);
                if (OrderMessages.REFUND_PAYMENT.equals(message.type())) {
                    refunds.add(new Refunding(record, readRefund(message.payload())));
                    continue;
                }
                if (!OrderMessages.CHARGE_PAYMENT.equals(message.type())) {
                    throw new PoisonMessage("unexpected message type " + message.type() + " on "
                            + Topics.PAYMENTS_COMMANDS);
                }
                ChargePayment command = read(message.payload());
                // The batch's charges run side by side (the provider's bulkhead bounds them), so a
                // slow provider costs one call's latency per batch, not one per command. A
                // redelivered command calls the provider again with the same key and gets the
                // stored answer; the inbox below keeps its effect (the reply) to one.
                calls.put(message.messageId(), new Charging(record, command,
                        CompletableFuture.supplyAsync(() -> charge.apply(command), charging)));
            } catch (PoisonMessage poison) {
                rejected.add(new ConsumerLoop.Rejected(record, poison.getMessage()));
            }
        }
        Map<UUID, OutgoingMessage> replies = new LinkedHashMap<>();
        RuntimeException failed = null;
        for (Map.Entry<UUID, Charging> call : calls.entrySet()) {
            Charging c = call.getValue();
            try {
                replies.put(call.getKey(), reply(c.command(), c.outcome().join()));
            } catch (CompletionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
                if (cause instanceof ParticipantError refused && refusedForGood(refused)) {
                    // The provider charged nothing and never will for this request: set it aside,
                    // visibly. The order shows PAYMENT_UNKNOWN after its step timeout, for an operator.
                    rejected.add(new ConsumerLoop.Rejected(c.record(),
                            "the provider refused the charge: " + refused.getMessage()));
                } else if (failed == null) {
                    failed = cause; // e.g. 401/403, the provider down: retried once the other calls ended
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
        refunds.forEach(r -> refund(r, rejected));
        if (replies.isEmpty()) {
            return rejected;
        }
        List<OutgoingMessage> first = jdbi.inTransaction(h -> {
            Set<UUID> fresh = Inbox.firstDeliveries(h, CONSUMER, replies.keySet());
            List<OutgoingMessage> out = new ArrayList<>();
            replies.forEach((id, reply) -> {
                if (fresh.contains(id)) {
                    out.add(reply);
                }
            });
            OutboxWriter.append(h, out);
            return out;
        });
        if (!first.isEmpty()) {
            afterOutboxWrite.run();
            first.forEach(r -> log.debug("order {} payment {}", r.key(), r.type()));
        }
        return rejected;
    }

    /** A refund command of the batch, run once the batch's charges ended. */
    private record Refunding(ConsumerRecord<String, byte[]> record, RefundPayment command) {}

    /** Refunds; a failure throws (the batch is retried, charges included: they answer from the ledger). */
    private void refund(Refunding r, List<ConsumerLoop.Rejected> rejected) {
        try {
            PaymentProvider.Charge now = refund.apply(r.command());
            log.info("order {} refund {} of charge {}: the charge is {}", r.command().orderId(),
                    r.command().refundKey(), r.command().chargeKey(), now);
        } catch (ParticipantError refused) {
            if (refused.status() == 404) {
                log.info("order {} refund {}: the provider has no charge {}, nothing was taken", r.command().orderId(),
                        r.command().refundKey(), r.command().chargeKey());
            } else if (refusedForGood(refused)) {
                rejected.add(new ConsumerLoop.Rejected(r.record(), "the provider refused the refund: "
                        + refused.getMessage()));
            } else {
                throw refused;
            }
        }
    }

    /** 400 or 422: the request itself is wrong, so sending it again can never charge. */
    private static boolean refusedForGood(ParticipantError refused) {
        return refused.status() == 400 || refused.status() == 422;
    }

    private static OutgoingMessage reply(ChargePayment command, PaymentProvider.Charge outcome) {
        return outcome == PaymentProvider.Charge.CAPTURED
                ? new OutgoingMessage(Topics.PAYMENTS_EVENTS, command.orderId().toString(),
                        OrderMessages.PAYMENT_CAPTURED,
                        new OrderMessages.PaymentCaptured(command.orderId(), command.idempotencyKey()))
                : new OutgoingMessage(Topics.PAYMENTS_EVENTS, command.orderId().toString(),
                        OrderMessages.PAYMENT_DECLINED, new OrderMessages.PaymentDeclined(command.orderId(),
                                command.idempotencyKey(), outcome.name().toLowerCase(java.util.Locale.ROOT)));
    }

    private static ChargePayment read(JsonNode body) {
        try {
            UUID orderId = UUID.fromString(text(body, "orderId"));
            String key = text(body, "idempotencyKey");
            String currency = text(body, "currency");
            JsonNode amount = body.get("amountCents");
            if (amount == null || !amount.isIntegralNumber() || amount.asLong() < 0) {
                throw new PoisonMessage("amountCents must be a non-negative integer");
            }
            if (!currency.matches("[A-Z]{3}") || key.isBlank() || key.length() > MAX_KEY_LENGTH) {
                throw new PoisonMessage("invalid currency or idempotencyKey (1-" + MAX_KEY_LENGTH + " characters)");
            }
            String customer = body.hasNonNull("customerId") ? body.get("customerId").asText() : "";
            return new ChargePayment(orderId, customer, amount.asLong(), currency, key);
        } catch (IllegalArgumentException e) {
            throw new PoisonMessage("orderId is not a UUID");
        }
    }

    private static RefundPayment readRefund(JsonNode body) {
        try {
            UUID orderId = UUID.fromString(text(body, "orderId"));
            String chargeKey = text(body, "chargeKey");
            String refundKey = text(body, "refundKey");
            if (chargeKey.isBlank() || refundKey.isBlank() || chargeKey.length() > MAX_KEY_LENGTH
                    || refundKey.length() > MAX_KEY_LENGTH) {
                throw new PoisonMessage("invalid chargeKey or refundKey (1-" + MAX_KEY_LENGTH + " characters)");
            }
            return new RefundPayment(orderId, chargeKey, refundKey);
        } catch (IllegalArgumentException e) {
            throw new PoisonMessage("orderId is not a UUID");
        }
    }

    private static String text(JsonNode body, String field) {
        JsonNode v = body.get(field);
        if (v == null || !v.isTextual()) {
            throw new PoisonMessage("field " + field + " missing or not a string");
        }
        return v.asText();
    }

    @Override
    public void close() {
        loops.forEach(ConsumerLoop::close);
        charging.shutdownNow();
    }
}
