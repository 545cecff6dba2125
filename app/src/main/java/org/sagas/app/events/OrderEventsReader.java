package org.sagas.app.events;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.Topics;

/**
 * A reader of {@code orders.events} for a person at a terminal: every partition assigned, no group,
 * nothing committed (it needs no group rights and leaves no trace), committed records only. Starts at
 * the end, or at the beginning; the start is fixed when it opens, so nothing published after that
 * is missed. Not thread-safe (one Kafka consumer).
 */
final class OrderEventsReader implements AutoCloseable {
    private static final Duration WAIT = Duration.ofSeconds(15);

    private final KafkaConsumer<String, byte[]> consumer;

    OrderEventsReader(KafkaConnection kafka, boolean fromBeginning) {
        this.consumer = new KafkaConsumer<>(kafka.config(Map.of(
                ConsumerConfig.CLIENT_ID_CONFIG, "sagas-events",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis())),
                new StringDeserializer(), new ByteArrayDeserializer());
        try {
            List<PartitionInfo> partitions = consumer.partitionsFor(Topics.ORDERS_EVENTS, WAIT);
            if (partitions == null || partitions.isEmpty()) {
                throw new IllegalStateException("Kafka at " + kafka + " has no topic " + Topics.ORDERS_EVENTS
                        + ": is it the product's broker?");
            }
            List<TopicPartition> assigned = partitions.stream().map(p -> new TopicPartition(p.topic(), p.partition()))
                    .toList();
            consumer.assign(assigned);
            if (fromBeginning) {
                consumer.seekToBeginning(assigned);
            } else {
                consumer.seekToEnd(assigned);
            }
            // Resolves the lazy seek now: what is published from here on is read.
            assigned.forEach(consumer::position);
        } catch (RuntimeException e) {
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
            throw e;
        }
    }

    ConsumerRecords<String, byte[]> poll(Duration within) {
        return consumer.poll(within);
    }

    @Override
    public void close() {
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(1)));
    }
}
