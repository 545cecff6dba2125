package org.sagas.adapters.messaging;

import java.util.List;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Feeds replies (e.g. {@code payments.events}) to the saga engine, which records each message id
 * in the inbox with its effect. Key = saga id; a record without a usable one is poison.
 */
public final class SagaReplyConsumer implements AutoCloseable {
    public static final String CONSUMER = "saga-orchestrator";
    private static final Logger log = LoggerFactory.getLogger(SagaReplyConsumer.class);

    private final SagaEngine engine;
    private final List<ConsumerLoop> loops;

    /** @param beforeEachRecord see {@link ConsumerLoop} */
    public SagaReplyConsumer(SagaEngine engine, String bootstrapServers, String group, String topic, int threads,
            Runnable beforeEachRecord, io.micrometer.core.instrument.MeterRegistry registry) {
        this.engine = engine;
        this.loops = java.util.stream.IntStream.range(0, threads)
                .mapToObj(i -> new ConsumerLoop(bootstrapServers, group, topic, this::handle, beforeEachRecord,
                        registry)).toList();
    }

    public SagaReplyConsumer start() {
        loops.forEach(ConsumerLoop::start);
        return this;
    }

    void handle(ConsumerRecord<String, byte[]> record) {
        IncomingMessage message = ParsedMessage.parse(record);
        UUID sagaId;
        try {
            sagaId = UUID.fromString(message.correlationId() != null ? message.correlationId() : message.key());
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new PoisonMessage("no saga id in key or correlation-id");
        }
        SagaEngine.ReplyOutcome outcome = engine.handleReply(CONSUMER, message, sagaId);
        if (outcome == SagaEngine.ReplyOutcome.UNKNOWN_SAGA) {
            throw new PoisonMessage("no saga " + sagaId);
        }
        log.debug("reply {} {} for saga {}: {}", message.type(), message.messageId(), sagaId, outcome);
    }

    @Override
    public void close() {
        loops.forEach(ConsumerLoop::close);
    }
}
