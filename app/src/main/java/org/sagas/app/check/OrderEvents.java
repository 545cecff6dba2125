package org.sagas.app.check;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages;

/**
 * Every {@code OrderStatusChanged} on {@code orders.events} (docs/events.md), from the beginning
 * of each partition to its end when the read started, with a consumer of its own: assigned
 * partitions, no group, nothing committed, committed records only.
 */
final class OrderEvents {
    /**
     * One event as the topic holds it; {@code status} and {@code version} are null when the body
     * does not carry them (an unreadable record is judged as such).
     */
    record Event(String orderId, String messageId, String status, Integer version, int partition, long offset) {}

    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final Duration READ_AT_MOST = Duration.ofMinutes(5);

    private OrderEvents() {}

    static List<Event> read(KafkaConnection kafka) {
        Map<String, Object> config = kafka.config(Map.of(
                ConsumerConfig.CLIENT_ID_CONFIG, "sagas-check",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5_000,
                ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis(),
                ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis()));
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new ByteArrayDeserializer())) {
            List<PartitionInfo> partitions = consumer.partitionsFor(Topics.ORDERS_EVENTS, WAIT);
            if (partitions == null || partitions.isEmpty()) {
                throw new Unreachable("Kafka at " + kafka + " has no topic " + Topics.ORDERS_EVENTS
                        + ": is it the product's broker?");
            }
            List<TopicPartition> assigned = partitions.stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(assigned);
            consumer.seekToBeginning(assigned);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(assigned, WAIT));
            List<Event> events = new ArrayList<>();
            long giveUpAt = System.nanoTime() + READ_AT_MOST.toNanos();
            while (!reachedEnd(consumer, end)) {
                if (System.nanoTime() > giveUpAt) {
                    throw new Unreachable("reading " + Topics.ORDERS_EVENTS + " took longer than " + READ_AT_MOST);
                }
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    Long last = end.get(new TopicPartition(r.topic(), r.partition()));
                    if (r.offset() < last && OrderMessages.ORDER_STATUS_CHANGED.equals(header(r, Topics.MESSAGE_TYPE))) {
                        events.add(event(r));
                    }
                }
            }
            return events;
        } catch (KafkaException e) {
            throw new Unreachable("cannot read " + Topics.ORDERS_EVENTS + " from Kafka at " + kafka + ": " + e, e);
        }
    }

    private static boolean reachedEnd(KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> end) {
        end.entrySet().removeIf(e -> consumer.position(e.getKey(), WAIT) >= e.getValue());
        return end.isEmpty();
    }

    private static Event event(ConsumerRecord<String, byte[]> r) {
        String status = null;
        Integer version = null;
        try {
            JsonNode body = r.value() == null ? null : Json.mapper().readTree(r.value());
            if (body != null && body.path("status").isTextual()) {
                status = body.get("status").asText();
            }
            if (body != null && body.path("sagaVersion").canConvertToInt()) {
                version = body.get("sagaVersion").asInt();
            }
        } catch (IOException unreadable) {
            // Judged as an event without status or version.
        }
        return new Event(r.key(), header(r, Topics.MESSAGE_ID), status, version, r.partition(), r.offset());
    }

    private static String header(ConsumerRecord<?, ?> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
