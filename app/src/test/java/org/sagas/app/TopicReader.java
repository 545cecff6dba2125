package org.sagas.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.sagas.orchestrator.messaging.Topics;

/** Reads a whole topic from the beginning, for assertions on what the product published. */
final class TopicReader {
    private TopicReader() {}

    /** The message types published under {@code key}, in order, read for up to {@code within}. */
    static List<String> typesFor(String bootstrap, String topic, String key, int expected, Duration within) {
        return headersFor(bootstrap, topic, key, Topics.MESSAGE_TYPE, expected, within);
    }

    /**
     * The value of header {@code header} ("" for none) of each record published under {@code key},
     * in order, read until {@code expected} or for up to {@code within}.
     */
    static List<String> headersFor(String bootstrap, String topic, String key, String header, int expected,
            Duration within) {
        List<String> values = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long end = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < end && values.size() < expected) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (key.equals(r.key())) {
                        Header h = r.headers().lastHeader(header);
                        values.add(h == null ? "" : new String(h.value(), StandardCharsets.UTF_8));
                    }
                }
            }
        }
        return values;
    }

    /** A message as published: its type header and its JSON body. */
    record Message(String type, JsonNode payload) {}

    /**
     * The messages published under each of {@code keys}, in order, read until every key has at
     * least {@code perKey} or {@code within} has passed.
     */
    static Map<String, List<Message>> messagesFor(String bootstrap, String topic, Collection<String> keys, int perKey,
            Duration within) {
        Set<String> wanted = Set.copyOf(keys);
        Map<String, List<Message>> found = new HashMap<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long end = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < end && !(found.keySet().containsAll(wanted)
                    && found.values().stream().allMatch(l -> l.size() >= perKey))) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (wanted.contains(r.key())) {
                        String type = new String(r.headers().lastHeader(Topics.MESSAGE_TYPE).value(),
                                StandardCharsets.UTF_8);
                        found.computeIfAbsent(r.key(), k -> new ArrayList<>())
                                .add(new Message(type, TestProduct.read(r.value())));
                    }
                }
            }
        }
        return found;
    }
}
