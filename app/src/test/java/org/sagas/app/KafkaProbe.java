package org.sagas.app;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

/** Reads, re-sends and waits on records of the real broker, for redelivery and poison tests. */
final class KafkaProbe {
    private final String bootstrap;

    KafkaProbe(String bootstrap) {
        this.bootstrap = bootstrap;
    }

    /** The first record under {@code key} on {@code topic} whose type is {@code type}. */
    Optional<ConsumerRecord<String, byte[]>> find(String topic, String key, String type, Duration within) {
        for (ConsumerRecord<String, byte[]> r : read(topic, within, rec -> key.equals(rec.key())
                && type.equals(header(rec, "message-type")))) {
            return Optional.of(r);
        }
        return Optional.empty();
    }

    List<ConsumerRecord<String, byte[]>> read(String topic, Duration within,
            java.util.function.Predicate<ConsumerRecord<String, byte[]>> match) {
        List<ConsumerRecord<String, byte[]>> found = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, byte[]>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "probe-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            long end = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < end && found.isEmpty()) {
                for (ConsumerRecord<String, byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (match.test(r)) {
                        found.add(r);
                    }
                }
            }
        }
        return found;
    }

    /** Sends {@code record}'s key, value and headers again, as a redelivery would. */
    void resend(ConsumerRecord<String, byte[]> record) {
        ProducerRecord<String, byte[]> again = new ProducerRecord<>(record.topic(), record.key(), record.value());
        record.headers().forEach(h -> again.headers().add(h));
        send(again);
    }

    void send(ProducerRecord<String, byte[]> record) {
        try (var producer = new KafkaProducer<String, byte[]>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new ByteArraySerializer())) {
            producer.send(record).get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not send to " + record.topic(), e);
        }
    }

    /** True once {@code group} has committed every record now on {@code topic}. */
    boolean caughtUp(String group, String topic) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            var partitions = admin.describeTopics(List.of(topic)).allTopicNames().get(10, TimeUnit.SECONDS).get(topic)
                    .partitions().stream().map(p -> new TopicPartition(topic, p.partition())).toList();
            var ends = admin.listOffsets(partitions.stream().collect(Collectors.toMap(p -> p, p -> OffsetSpec.latest())))
                    .all().get(10, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
            return partitions.stream().allMatch(p -> {
                long end = ends.get(p).offset();
                OffsetAndMetadata c = committed.get(p);
                return end == 0 || (c != null && c.offset() >= end);
            });
        } catch (Exception e) {
            return false;
        }
    }

    static String header(ConsumerRecord<String, byte[]> r, String name) {
        var h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
