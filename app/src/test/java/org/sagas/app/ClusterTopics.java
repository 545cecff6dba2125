package org.sagas.app;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.Topics;

/**
 * A whole topic of a cluster read to its end as it is now, committed records only, signed in as
 * the given user: what a test reads to see what was published per key.
 */
final class ClusterTopics {
    /** One record: its key, {@code message-type} header, place and value. */
    record Record(String key, String type, int partition, long offset, String value) {}

    private static final Duration WAIT = Duration.ofSeconds(15);

    private ClusterTopics() {}

    /** Every record of {@code topic} up to its current end, in offset order per partition. */
    static List<Record> read(KafkaConnection kafka, String topic) {
        Map<String, Object> config = kafka.config(Map.of(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000));
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new StringDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, WAIT).stream()
                    .map(p -> new TopicPartition(topic, p.partition())).toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions, WAIT));
            List<Record> records = new ArrayList<>();
            long giveUpAt = System.nanoTime() + Duration.ofMinutes(2).toNanos();
            while (end.entrySet().stream().anyMatch(e -> consumer.position(e.getKey(), WAIT) < e.getValue())) {
                if (System.nanoTime() > giveUpAt) {
                    throw new AssertionError("reading " + topic + " took over 2 minutes");
                }
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(500))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        Header type = r.headers().lastHeader(Topics.MESSAGE_TYPE);
                        records.add(new Record(r.key(), type == null ? "" : new String(type.value(),
                                StandardCharsets.UTF_8), r.partition(), r.offset(), r.value()));
                    }
                }
            }
            return records;
        }
    }
}
