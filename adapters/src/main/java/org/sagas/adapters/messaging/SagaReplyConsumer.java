package org.sagas.adapters.messaging;

import org.sagas.orchestrator.messaging.KafkaConnection;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.sagas.orchestrator.saga.IncidentCause;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.tracing.Tracing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds replies (e.g. {@code payments.events}) to the saga engine, a batch at a time; a redelivered
 * reply finds its saga past the wait it answered and changes nothing. Key = saga id; a record without a usable one,
 * or for a saga that does not exist, is poison. A reply to a saga of a definition version this
 * process lacks is left for a process that has it ({@link ConsumerLoop.Fate#LEFT_FOR_ANOTHER_PROCESS}),
 * logged with the order and counted in {@code saga_replies_left_for_other_versions_total}. A reply whose handling keeps failing is retried for
 * a bounded time while the others go on, then dead-lettered; either way a dead-lettered reply is the
 * {@link IncidentCause#POISON_REPLY} incident of its saga. While tracing is on, each reply is a
 * consumer span continuing the trace of its {@code traceparent} header, and the saga's transition
 * (the order's confirmation, its events) happens inside it.
 */
public final class SagaReplyConsumer implements AutoCloseable {
    public static final String CONSUMER = "saga-orchestrator";
    private static final Logger log = LoggerFactory.getLogger(SagaReplyConsumer.class);

    private final SagaEngine engine;
    private final List<ConsumerLoop> loops;
    private final io.micrometer.core.instrument.Counter leftForOthers;
    /** Set before {@link #start()}: the consumer threads see it through Thread.start. */
    private Tracing tracing = Tracing.off();

    /** @param beforeEachBatch see {@link ConsumerLoop} */
    public SagaReplyConsumer(SagaEngine engine, KafkaConnection kafka, String group, String topic, int threads,
            ConsumerLoop.BatchGate beforeEachBatch, io.micrometer.core.instrument.MeterRegistry registry) {
        this(engine, kafka, group, topic, threads, beforeEachBatch, registry,
                ConsumerLoop.DEFAULT_RETRY_FOR);
    }

    /** @param retryFor how long a reply whose handling fails is retried before it is dead-lettered */
    public SagaReplyConsumer(SagaEngine engine, KafkaConnection kafka, String group, String topic, int threads,
            ConsumerLoop.BatchGate beforeEachBatch, io.micrometer.core.instrument.MeterRegistry registry,
            java.time.Duration retryFor) {
        this.engine = engine;
        this.leftForOthers = io.micrometer.core.instrument.Counter.builder("saga.replies.left.for.other.versions")
                .description("Replies to sagas of a definition version this process lacks, set aside for a"
                        + " process that has it (each time they were handed back)")
                .tag("topic", topic).register(registry);
        this.loops = java.util.stream.IntStream.range(0, threads)
                .mapToObj(i -> new ConsumerLoop(kafka, group, topic, this::handle, beforeEachBatch,
                        registry, retryFor, this::deadLettering)).toList();
    }

    /** A reply given up on: its saga, when the key names one, waits for an operator. */
    void deadLettering(ConsumerRecord<String, byte[]> record, String reason, ConsumerLoop.DeadLetterCause cause) {
        sagaId(record.key()).ifPresent(id -> engine.raiseIncident(id, IncidentCause.POISON_REPLY,
                "reply " + record.topic() + "/" + record.partition() + "@" + record.offset() + " dead-lettered: "
                        + reason));
    }

    /** The saga id a record key names, if it is one. */
    public static java.util.Optional<UUID> sagaId(String key) {
        try {
            return key == null ? java.util.Optional.empty() : java.util.Optional.of(UUID.fromString(key));
        } catch (IllegalArgumentException e) {
            return java.util.Optional.empty();
        }
    }

    /** Traces each reply with {@code tracing} (ADR 0018); call before {@link #start()}. */
    public SagaReplyConsumer tracing(Tracing tracing) {
        this.tracing = tracing;
        return this;
    }

    public SagaReplyConsumer start() {
        loops.forEach(ConsumerLoop::start);
        return this;
    }

    List<ConsumerLoop.Rejected> handle(List<ConsumerRecord<String, byte[]>> records) {
        List<ConsumerLoop.Rejected> rejected = new ArrayList<>();
        List<ConsumerRecord<String, byte[]>> accepted = new ArrayList<>();
        List<SagaEngine.Reply> replies = new ArrayList<>();
        List<Span> spans = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                SagaEngine.Reply reply = reply(record);
                if (tracing.on()) {
                    Span span = ParsedMessage.consumerSpan(tracing, record);
                    spans.add(span);
                    reply = new SagaEngine.Reply(reply.message(), reply.sagaId(), Context.root().with(span));
                }
                replies.add(reply);
                accepted.add(record);
            } catch (PoisonMessage poison) {
                rejected.add(new ConsumerLoop.Rejected(record, poison.getMessage()));
            }
        }
        if (replies.isEmpty()) {
            return rejected;
        }
        List<SagaEngine.ReplyOutcome> outcomes;
        try {
            outcomes = engine.handleReplies(replies);
        } finally {
            spans.forEach(Span::end);
        }
        for (int i = 0; i < outcomes.size(); i++) {
            SagaEngine.Reply reply = replies.get(i);
            if (outcomes.get(i) == SagaEngine.ReplyOutcome.UNKNOWN_SAGA) {
                rejected.add(new ConsumerLoop.Rejected(accepted.get(i), "no saga " + reply.sagaId()));
            } else if (outcomes.get(i) == SagaEngine.ReplyOutcome.UNKNOWN_VERSION) {
                // Neither done nor poison: a build that has its version applies it (docs/design.md,
                // "A second version of a saga"); until then it waits here, unacknowledged.
                leftForOthers.increment();
                log.warn("reply {} for order {} left for a process that has its saga's definition version",
                        reply.message().type(), reply.sagaId());
                rejected.add(new ConsumerLoop.Rejected(accepted.get(i), "saga " + reply.sagaId()
                        + " runs a definition version this process lacks",
                        ConsumerLoop.Fate.LEFT_FOR_ANOTHER_PROCESS));
            }
            log.debug("reply {} {} for saga {}: {}", reply.message().type(), reply.message().messageId(),
                    reply.sagaId(), outcomes.get(i));
        }
        return rejected;
    }


    private static SagaEngine.Reply reply(ConsumerRecord<String, byte[]> record) {
        IncomingMessage message = ParsedMessage.parse(record);
        try {
            return new SagaEngine.Reply(message,
                    UUID.fromString(message.correlationId() != null ? message.correlationId() : message.key()));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new PoisonMessage("no saga id in key or correlation-id");
        }
    }

    @Override
    public void close() {
        ConsumerLoop.closeAll(loops);
    }
}
