package org.sagas.adapters.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.sagas.orchestrator.admin.KafkaDeadLetters;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.Topics;

/**
 * The product's dead-letter topics on the broker: listed with an admin client, read with a consumer
 * that assigns partitions itself (no group, nothing committed), redriven with an idempotent
 * producer that waits for every replica. The source topic is the record's {@code dlt-source}
 * header's, else the dead-letter topic's name without {@code .dlt}. Thread-safe: each read uses a
 * consumer of its own.
 */
public final class KafkaDeadLetterTopics implements KafkaDeadLetters, AutoCloseable {
    private static final Duration WAIT = Duration.ofSeconds(10);
    private static final int MAX_VALUE_CHARS = 4_000;

    private final KafkaConnection kafka;
    private final Admin admin;
    private final KafkaProducer<String, byte[]> producer;

    public KafkaDeadLetterTopics(KafkaConnection kafka) {
        this.kafka = kafka;
        this.admin = Admin.create(kafka.config(Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis())));
        this.producer = new KafkaProducer<>(kafka.config(Map.of(
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis() * 3,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) WAIT.toMillis())),
                new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public List<Topic> topics() {
        Set<String> existing = get(admin.listTopics().names());
        List<String> dlts = Topics.all().stream().filter(t -> t.endsWith(".dlt") && existing.contains(t)).toList();
        List<Topic> topics = new ArrayList<>();
        for (String dlt : dlts) {
            topics.add(new Topic(dlt, dlt.substring(0, dlt.length() - 4), size(dlt)));
        }
        return topics;
    }

    @Override
    public List<Record> records(String topic, int limit) {
        List<TopicPartition> partitions = partitions(topic);
        Map<TopicPartition, Long> ends = offsets(partitions, OffsetSpec.latest());
        List<Record> found = new ArrayList<>();
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (found.size() < limit && System.nanoTime() < deadline && !reachedEnd(consumer, ends)) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (found.size() < limit) {
                        found.add(record(r));
                    }
                }
            }
        }
        return found;
    }

    @Override
    public Optional<Record> record(String topic, int partition, long offset) {
        return raw(topic, partition, offset).map(KafkaDeadLetterTopics::record);
    }

    @Override
    public Redriven redrive(Record record) {
        // Key, value and headers byte for byte as stored, not as the listing shows them.
        ConsumerRecord<String, byte[]> dead = raw(record.topic(), record.partition(), record.offset())
                .orElseThrow(() -> new IllegalStateException("record " + record.topic() + "/" + record.partition()
                        + "@" + record.offset() + " is gone"));
        ProducerRecord<String, byte[]> again = new ProducerRecord<>(sourceTopic(record), dead.key(), dead.value());
        dead.headers().forEach(h -> again.headers().add(h));
        again.headers().add(REDRIVE_HEADER, (record.topic() + "/" + record.partition() + "@" + record.offset())
                .getBytes(StandardCharsets.UTF_8));
        RecordMetadata written = get(producer.send(again));
        return new Redriven(written.topic(), written.partition(), written.offset());
    }

    private Optional<ConsumerRecord<String, byte[]>> raw(String topic, int partition, long offset) {
        if (!topic.endsWith(".dlt") || !get(admin.listTopics().names()).contains(topic)) {
            return Optional.empty();
        }
        TopicPartition tp = new TopicPartition(topic, partition);
        if (!partitions(topic).contains(tp)) {
            return Optional.empty();
        }
        long end = offsets(List.of(tp), OffsetSpec.latest()).get(tp);
        if (offset >= end) {
            return Optional.empty();
        }
        try (KafkaConsumer<String, byte[]> consumer = consumer()) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() == offset) {
                        return Optional.of(r);
                    }
                    if (r.offset() > offset) {
                        return Optional.empty(); // removed by retention or compaction
                    }
                }
            }
        }
        throw new IllegalStateException("could not read " + topic + "/" + partition + "@" + offset + " within " + WAIT);
    }

    private static String sourceTopic(Record record) {
        String source = record.headers().get("dlt-source");
        if (source != null && source.contains("/")) {
            return source.substring(0, source.lastIndexOf('/'));
        }
        return record.topic().substring(0, record.topic().length() - ".dlt".length());
    }

    private static Record record(ConsumerRecord<String, byte[]> r) {
        Map<String, String> headers = new LinkedHashMap<>();
        r.headers().forEach(h -> headers.put(h.key(), h.value() == null ? null
                : new String(h.value(), StandardCharsets.UTF_8)));
        String value = r.value() == null ? null : new String(r.value(), StandardCharsets.UTF_8);
        if (value != null && value.length() > MAX_VALUE_CHARS) {
            value = value.substring(0, MAX_VALUE_CHARS) + "…";
        }
        return new Record(r.topic(), r.partition(), r.offset(), Instant.ofEpochMilli(r.timestamp()), r.key(), headers,
                headers.get(Topics.DLT_REASON), value);
    }

    private long size(String topic) {
        List<TopicPartition> partitions = partitions(topic);
        Map<TopicPartition, Long> begin = offsets(partitions, OffsetSpec.earliest());
        Map<TopicPartition, Long> end = offsets(partitions, OffsetSpec.latest());
        return partitions.stream().mapToLong(p -> end.get(p) - begin.get(p)).sum();
    }

    private List<TopicPartition> partitions(String topic) {
        if (!topic.endsWith(".dlt") || !get(admin.listTopics().names()).contains(topic)) {
            throw new IllegalArgumentException("no dead-letter topic " + topic + " on the broker");
        }
        return get(admin.describeTopics(List.of(topic)).allTopicNames()).get(topic).partitions().stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
    }

    private Map<TopicPartition, Long> offsets(List<TopicPartition> partitions, OffsetSpec spec) {
        return get(admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> spec))).all())
                .entrySet().stream().collect(Collectors.toMap(Map.Entry::getKey, e -> e.getValue().offset()));
    }

    private static boolean reachedEnd(KafkaConsumer<String, byte[]> consumer, Map<TopicPartition, Long> ends) {
        return ends.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
    }

    private KafkaConsumer<String, byte[]> consumer() {
        Properties p = new Properties();
        p.putAll(kafka.config());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 500);
        return new KafkaConsumer<>(p, new StringDeserializer(), new ByteArrayDeserializer());
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> future) {
        try {
            return future.get(WAIT.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking Kafka", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Kafka did not answer: " + e, e);
        }
    }

    private static <T> T get(java.util.concurrent.Future<T> future) {
        try {
            return future.get(WAIT.toMillis() * 3, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing to Kafka", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Kafka did not take the record: " + e, e);
        }
    }

    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
        admin.close(Duration.ofSeconds(5));
    }
}
