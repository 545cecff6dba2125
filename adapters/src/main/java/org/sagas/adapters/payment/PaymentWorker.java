package org.sagas.adapters.payment;

import org.sagas.orchestrator.messaging.KafkaConnection;
import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
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
import org.sagas.orchestrator.persistence.OutboxWriter;
import org.sagas.orchestrator.ordering.Limits;
import org.sagas.orchestrator.ordering.OrderReason;
import org.sagas.orchestrator.ordering.PaymentProvider;
import org.sagas.orchestrator.resilience.ParticipantRefused;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.sagas.orchestrator.tracing.LogContext;
import org.sagas.orchestrator.tracing.Traceparent;
import org.sagas.orchestrator.tracing.Tracing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes {@code payments.commands}, charges the provider with the command's idempotency key and
 * hands the outcomes on, a batch at a time: published to {@code payments.events} through the outbox,
 * or, when the saga engine runs in the same process, to that engine directly ({@link ReplySink}). A redelivered command has no second effect: the provider answers
 * a repeated key from its ledger, and the saga ignores a second reply, since the first moved it past
 * its wait (no inbox row: docs/decisions/0019). A charge the provider refuses for good (a {@link
 * ParticipantRefused}: nothing charged) is answered as a decline with code {@code payment_refused},
 * so the order is cancelled and its stock released. A command that cannot be parsed goes to
 * {@code payments.commands.dlt} with the reason.
 *
 * <p>A {@code RefundPayment} (an operator cancelled an order whose charge was under way or
 * captured) refunds under its own key once the batch's charges ended, so a charge the same order
 * asked for earlier is always settled first; a provider with no charge under the key took nothing,
 * and there is nothing to refund. A refund the provider refuses for good is dead-lettered, which
 * makes it its order's incident.
 *
 * <p>While tracing is on, each command is a consumer span continuing the trace of its {@code
 * traceparent} header; the provider call runs inside it (and sends it on), and the reply's outbox
 * row stores it, so the orchestrator continues the same trace. Thread-safe.
 */
public final class PaymentWorker implements AutoCloseable {
    public static final String CONSUMER = "payment-worker";
    private static final Logger log = LoggerFactory.getLogger(PaymentWorker.class);

    /**
     * Where the worker's replies go, one call per batch: {@link #outbox} (to {@code payments.events},
     * for a saga engine in any process), or {@link #toEngine} (the engine of this process).
     */
    @FunctionalInterface
    public interface ReplySink {
        /**
         * Delivers {@code replies}; {@code traceOf} gives each one's command's traceparent (null: none).
         *
         * @return the replies no saga took (their commands are dead-lettered with the reason)
         */
        List<OutgoingMessage> deliver(List<OutgoingMessage> replies, Function<OutgoingMessage, String> traceOf);
    }

    private final ReplySink replies;
    private final Function<ChargePayment, PaymentProvider.Charge> charge;
    private final List<ConsumerLoop> loops;
    /** Runs the provider calls of a batch side by side; as many threads as the provider's bulkhead has permits. */
    private final ExecutorService charging;
    private final Function<RefundPayment, PaymentProvider.Charge> refund;
    /** Set before {@link #start()}: the consumer threads see it through Thread.start. */
    private Tracing tracing = Tracing.off();

    /**
     * @param charge calls the provider (through the resilience stack); throws when it failed
     * @param refund refunds at the provider (through the resilience stack); throws when it failed
     * @param threads consumers in the group; at most the topic's partition count are busy
     * @param chargingThreads provider calls of a batch made side by side: the provider bulkhead's permits
     * @param beforeEachBatch see {@link ConsumerLoop}
     */
    public PaymentWorker(Jdbi jdbi, KafkaConnection kafka, String group, int threads, int chargingThreads,
            Function<ChargePayment, PaymentProvider.Charge> charge,
            Function<RefundPayment, PaymentProvider.Charge> refund, Runnable afterOutboxWrite,
            ConsumerLoop.BatchGate beforeEachBatch, io.micrometer.core.instrument.MeterRegistry registry) {
        this(outbox(jdbi, afterOutboxWrite), kafka, group, threads, chargingThreads, charge, refund,
                beforeEachBatch, registry, ConsumerLoop.DEFAULT_RETRY_FOR, ConsumerLoop.DeadLetterListener.NONE);
    }

    /**
     * @param replies where the outcomes go: {@link #outbox}, or {@link #toEngine} when the saga engine
     *     runs in this process
     * @param retryFor how long a command whose charge keeps failing is retried before it is dead-lettered
     * @param onDeadLetter told about each command before it is dead-lettered (the product makes it
     *     the COMMAND_DEAD_LETTERED incident of its order)
     */
    public PaymentWorker(ReplySink replies, KafkaConnection kafka, String group, int threads, int chargingThreads,
            Function<ChargePayment, PaymentProvider.Charge> charge,
            Function<RefundPayment, PaymentProvider.Charge> refund,
            ConsumerLoop.BatchGate beforeEachBatch, io.micrometer.core.instrument.MeterRegistry registry,
            java.time.Duration retryFor, ConsumerLoop.DeadLetterListener onDeadLetter) {
        this.replies = replies;
        this.charging = org.sagas.orchestrator.lifecycle.Threads.pool("payment-charge", chargingThreads);
        this.charge = charge;
        this.refund = refund;
        this.loops = java.util.stream.IntStream.range(0, threads)
                .mapToObj(i -> new ConsumerLoop(kafka, group, Topics.PAYMENTS_COMMANDS, this::handle,
                        beforeEachBatch, registry, retryFor, onDeadLetter))
                .toList();
    }

    /** Traces each command with {@code tracing} (ADR 0018); call before {@link #start()}. */
    public PaymentWorker tracing(Tracing tracing) {
        this.tracing = tracing;
        return this;
    }

    /**
     * Replies through the outbox to {@code payments.events}: one transaction per batch, then the relay
     * is woken; each reply's row keeps its command's traceparent.
     */
    public static ReplySink outbox(Jdbi jdbi, Runnable afterOutboxWrite) {
        return (out, traceOf) -> {
            jdbi.useTransaction(h -> OutboxWriter.appendTraced(h, out, traceOf));
            afterOutboxWrite.run();
            return List.of();
        };
    }

    /**
     * Replies handed to {@code engine} in this process (the payment worker and the saga worker share
     * it): the batch's sagas move on in one transaction, with no outbox row, relay round, broker record
     * or reply consumer between (docs/decisions/0019). A crash before that commit leaves the commands
     * unacknowledged: redelivered, they ask the provider again under the same keys and get the same
     * answers. These replies do not appear on {@code payments.events}. While tracing is on, each is
     * applied inside a span of its command's trace, as the reply consumer would. A reply to a saga of
     * a definition version this engine lacks goes to {@code elsewhere} (the outbox): on {@code
     * payments.events} the process that has it takes it (docs/design.md, "A second version of a saga").
     */
    public static ReplySink toEngine(SagaEngine engine, Tracing tracing, ReplySink elsewhere) {
        return (out, traceOf) -> {
            List<Span> spans = new ArrayList<>();
            List<SagaEngine.Reply> handed = new ArrayList<>();
            for (OutgoingMessage m : out) {
                IncomingMessage message = new IncomingMessage(UUID.randomUUID(), m.type(), m.key(), m.key(),
                        Json.mapper().valueToTree(m.payload()));
                if (tracing.on()) {
                    Span span = tracing.start("payment reply " + m.type(), SpanKind.INTERNAL,
                            tracing.continuing(traceOf.apply(m)));
                    spans.add(span);
                    handed.add(new SagaEngine.Reply(message, UUID.fromString(m.key()), Context.root().with(span)));
                } else {
                    handed.add(new SagaEngine.Reply(message, UUID.fromString(m.key())));
                }
            }
            List<SagaEngine.ReplyOutcome> outcomes;
            try {
                outcomes = engine.handleReplies(handed);
            } finally {
                spans.forEach(Span::end);
            }
            List<OutgoingMessage> untaken = new ArrayList<>();
            List<OutgoingMessage> otherVersions = new ArrayList<>();
            for (int i = 0; i < outcomes.size(); i++) {
                if (outcomes.get(i) == SagaEngine.ReplyOutcome.UNKNOWN_SAGA) {
                    untaken.add(out.get(i));
                } else if (outcomes.get(i) == SagaEngine.ReplyOutcome.UNKNOWN_VERSION) {
                    otherVersions.add(out.get(i));
                }
            }
            if (!otherVersions.isEmpty()) {
                untaken.addAll(elsewhere.deliver(otherVersions, traceOf));
            }
            return untaken;
        };
    }

    public PaymentWorker start() {
        loops.forEach(ConsumerLoop::start);
        return this;
    }

    /** A command of the batch whose provider call is under way. */
    private record Charging(ConsumerRecord<String, byte[]> record, ChargePayment command,
            CompletableFuture<PaymentProvider.Charge> outcome, Span span) {}

    /**
     * What the provider said to a batch: the replies to publish (by command message id), the
     * records set aside, and the first failure (the provider failed: the batch is retried).
     */
    record Charged(Map<UUID, OutgoingMessage> replies, List<ConsumerLoop.Rejected> rejected,
            RuntimeException failed, List<Refunding> refunds, Map<UUID, String> traceparents,
            Map<UUID, ConsumerRecord<String, byte[]>> commands) {}

    /** A refund command of the batch, run once the batch's charges ended. */
    record Refunding(ConsumerRecord<String, byte[]> record, RefundPayment command) {}

    List<ConsumerLoop.Rejected> handle(List<ConsumerRecord<String, byte[]>> records) {
        Charged charged = charge(records);
        if (charged.failed() != null) {
            throw charged.failed();
        }
        charged.refunds().forEach(r -> refund(r, charged.rejected()));
        if (charged.replies().isEmpty()) {
            return charged.rejected();
        }
        // Each reply continues its own command's trace (none while tracing is off).
        Map<OutgoingMessage, String> traceOf = new java.util.IdentityHashMap<>();
        charged.replies().forEach((id, reply) -> traceOf.put(reply, charged.traceparents().get(id)));
        List<OutgoingMessage> out = List.copyOf(charged.replies().values());
        List<OutgoingMessage> untaken = replies.deliver(out, traceOf::get);
        out.forEach(r -> log.debug("order {} payment {}", r.key(), r.type()));
        if (untaken.isEmpty()) {
            return charged.rejected();
        }
        // As the reply consumer does with a reply no saga takes: the command goes to the dead letters.
        List<ConsumerLoop.Rejected> rejected = new ArrayList<>(charged.rejected());
        charged.replies().forEach((id, reply) -> {
            if (untaken.contains(reply)) {
                rejected.add(new ConsumerLoop.Rejected(charged.commands().get(id), "no saga " + reply.key()
                        + " for its payment " + reply.type()));
            }
        });
        return rejected;
    }

    /** Calls the provider for each command of the batch, side by side; writes nothing. */
    Charged charge(List<ConsumerRecord<String, byte[]>> records) {
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
                Span span = tracing.on() ? ParsedMessage.consumerSpan(tracing, record) : null;
                // The batch's charges run side by side (the provider's bulkhead bounds them), so a
                // slow provider costs one call's latency per batch, not one per command. A
                // redelivered command calls the provider again with the same key and gets the
                // stored answer; the saga takes the first reply only.
                calls.put(message.messageId(), new Charging(record, command,
                        CompletableFuture.supplyAsync(inContext(span, command.orderId(), () -> charge.apply(command)),
                                charging), span));
            } catch (PoisonMessage poison) {
                rejected.add(new ConsumerLoop.Rejected(record, poison.getMessage()));
            }
        }
        Map<UUID, OutgoingMessage> replies = new LinkedHashMap<>();
        Map<UUID, String> traceparents = new java.util.HashMap<>();
        RuntimeException failed = null;
        for (Map.Entry<UUID, Charging> call : calls.entrySet()) {
            Charging c = call.getValue();
            try {
                replies.put(call.getKey(), reply(c.command(), c.outcome().join()));
                if (c.span() != null) {
                    traceparents.put(call.getKey(), Traceparent.of(c.span().getSpanContext()));
                    c.span().end();
                }
            } catch (CompletionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r : e;
                if (c.span() != null) {
                    c.span().setStatus(StatusCode.ERROR, cause.getClass().getSimpleName());
                    traceparents.put(call.getKey(), Traceparent.of(c.span().getSpanContext()));
                    c.span().end();
                }
                if (cause instanceof ParticipantRefused refused) {
                    // Refused for good: nothing was charged, and sending it again cannot charge. The
                    // saga hears it as a refusal (code payment_refused) and cancels the order.
                    log.warn("order {} charge refused by the provider: {}", c.command().orderId(),
                            refused.getMessage());
                    replies.put(call.getKey(), refusedReply(c.command(), refused));
                } else if (failed == null) {
                    failed = cause; // the provider failed or is unavailable: retried by the consumer
                }
            }
        }
        Map<UUID, ConsumerRecord<String, byte[]>> commands = new java.util.HashMap<>();
        calls.forEach((id, c) -> commands.put(id, c.record()));
        return new Charged(replies, rejected, failed, refunds, traceparents, commands);
    }


    /**
     * {@code work} as it runs on a charging thread: inside {@code span} (when traced) and with the
     * order's ids in the MDC, both cleared when it ends.
     */
    private static <T> java.util.function.Supplier<T> inContext(Span span, UUID orderId,
            java.util.function.Supplier<T> work) {
        return () -> {
            try (Scope scope = span != null ? span.makeCurrent() : Scope.noop();
                    LogContext logged = LogContext.of(orderId)) {
                return work.get();
            }
        };
    }

    /** Refunds; a failure throws (the batch is retried, charges included: they answer from the ledger). */
    private void refund(Refunding r, List<ConsumerLoop.Rejected> rejected) {
        Span span = tracing.on() ? ParsedMessage.consumerSpan(tracing, r.record()) : null;
        try (Scope scope = span != null ? span.makeCurrent() : Scope.noop();
                LogContext logged = LogContext.of(r.command().orderId())) {
            PaymentProvider.Charge now = refund.apply(r.command());
            log.info("order {} refund {} of charge {}: the charge is {}", r.command().orderId(),
                    r.command().refundKey(), r.command().chargeKey(), now);
        } catch (ParticipantRefused refused) {
            if (refused instanceof ParticipantError error && error.status() == 404) {
                log.info("order {} refund {}: the provider has no charge {}, nothing was taken", r.command().orderId(),
                        r.command().refundKey(), r.command().chargeKey());
            } else {
                rejected.add(new ConsumerLoop.Rejected(r.record(), "the provider refused the refund: "
                        + refused.getMessage()));
            }
        } finally {
            if (span != null) {
                span.end();
            }
        }
    }

    private static OutgoingMessage refusedReply(ChargePayment command, ParticipantRefused refused) {
        return new OutgoingMessage(Topics.PAYMENTS_EVENTS, command.orderId().toString(),
                OrderMessages.PAYMENT_DECLINED, new OrderMessages.PaymentDeclined(command.orderId(),
                        command.idempotencyKey(), refused.getMessage(), OrderReason.PAYMENT_REFUSED.code()));
    }

    private static OutgoingMessage reply(ChargePayment command, PaymentProvider.Charge outcome) {
        return outcome == PaymentProvider.Charge.CAPTURED
                ? new OutgoingMessage(Topics.PAYMENTS_EVENTS, command.orderId().toString(),
                        OrderMessages.PAYMENT_CAPTURED,
                        new OrderMessages.PaymentCaptured(command.orderId(), command.idempotencyKey()))
                : new OutgoingMessage(Topics.PAYMENTS_EVENTS, command.orderId().toString(),
                        OrderMessages.PAYMENT_DECLINED, new OrderMessages.PaymentDeclined(command.orderId(),
                                command.idempotencyKey(), outcome.name().toLowerCase(java.util.Locale.ROOT),
                                OrderReason.PAYMENT_DECLINED.code()));
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
            if (!Limits.isCurrency(currency)) {
                throw new PoisonMessage("currency must be three capital letters");
            }
            // The provider takes what the orchestrator's limits allow, no more (Limits).
            Limits.textProblem(key, Limits.MAX_KEY).ifPresent(problem -> {
                throw new PoisonMessage("idempotencyKey " + problem);
            });
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
            for (String key : List.of(chargeKey, refundKey)) {
                Limits.textProblem(key, Limits.MAX_KEY).ifPresent(problem -> {
                    throw new PoisonMessage("chargeKey and refundKey " + problem);
                });
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
        ConsumerLoop.closeAll(loops);
        charging.shutdownNow();
    }
}
