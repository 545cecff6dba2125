package org.sagas.adapters.messaging;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds replies (e.g. {@code payments.events}) to the saga engine, a batch at a time, which records
 * their message ids in the inbox with their effects. Key = saga id; a record without a usable one,
 * or for a saga that does not exist, is poison.
 */
public final class SagaReplyConsumer implements AutoCloseable {
    public static final String CONSUMER = "saga-orchestrator";
    private static final Logger log = LoggerFactory.getLogger(SagaReplyConsumer.class);

    private final SagaEngine engine;
    private final List<ConsumerLoop> loops;

    /** @param beforeEachBatch see {@link ConsumerLoop} */
    public SagaReplyConsumer(SagaEngine engine, String bootstrapServers, String group, String topic, int threads,
            Runnable beforeEachBatch, io.micrometer.core.instrument.MeterRegistry registry) {
        this.engine = engine;
        this.loops = java.util.stream.IntStream.range(0, threads)
                .mapToObj(i -> new ConsumerLoop(bootstrapServers, group, topic, this::handle, beforeEachBatch,
                        registry)).toList();
    }

    public SagaReplyConsumer start() {
        loops.forEach(ConsumerLoop::start);
        return this;
    }

    List<ConsumerLoop.Rejected> handle(List<ConsumerRecord<String, byte[]>> records) {
        List<ConsumerLoop.Rejected> rejected = new ArrayList<>();
        List<ConsumerRecord<String, byte[]>> accepted = new ArrayList<>();
        List<SagaEngine.Reply> replies = new ArrayList<>();
        for (ConsumerRecord<String, byte[]> record : records) {
            try {
                replies.add(reply(record));
                accepted.add(record);
            } catch (PoisonMessage poison) {
                rejected.add(new ConsumerLoop.Rejected(record, poison.getMessage()));
            }
        }
        if (replies.isEmpty()) {
            return rejected;
        }
        List<SagaEngine.ReplyOutcome> outcomes = engine.handleReplies(CONSUMER, replies);
        for (int i = 0; i < outcomes.size(); i++) {
            SagaEngine.Reply reply = replies.get(i);
            if (outcomes.get(i) == SagaEngine.ReplyOutcome.UNKNOWN_SAGA) {
                rejected.add(new ConsumerLoop.Rejected(accepted.get(i), "no saga " + reply.sagaId()));
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
        loops.forEach(ConsumerLoop::close);
    }
}
