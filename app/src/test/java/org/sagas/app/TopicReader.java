package org.sagas.app;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.sagas.orchestrator.messaging.Topics;

/** Reads a whole topic from the beginning, for assertions on what the product published. */
final class TopicReader {
    private TopicReader() {}

    /** The message types published under {@code key}, in order, read for up to {@code within}. */
    static List<String> typesFor(String bootstrap, String topic, String key, int expected, Duration within) {
        List<String> types = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long end = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < end && types.size() < expected) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(r.key())) {
                        types.add(new String(r.headers().lastHeader(Topics.MESSAGE_TYPE).value(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return types;
    }
}
