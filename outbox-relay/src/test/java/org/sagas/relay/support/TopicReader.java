package org.sagas.relay.support;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * Reads a topic from the beginning on a thread of its own, keeping every record seen. Partitions
 * are assigned, not subscribed: no consumer group, so no rebalance after a broker outage makes it
 * read records twice. Thread-safe.
 */
public final class TopicReader implements AutoCloseable {
    private final KafkaConsumer<String, String> consumer;
    private final List<Seen> seen = new ArrayList<>();
    private final Thread thread;
    private volatile boolean stopped;

    /**
     * One record as consumed.
     *
     * @param timestamp the record's Kafka timestamp (when the relay's producer sent it)
     */
    public record Seen(String key, String value, String messageId, String messageType, String correlationId,
            int partition, long offset, long receivedNanos, long timestamp) {}

    public TopicReader(String bootstrapServers, String topic) {
        this.consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000,
                ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500),
                new StringDeserializer(), new StringDeserializer());
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(topic, p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        this.thread = new Thread(this::poll, "topic-reader-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    public synchronized int count() {
        return seen.size();
    }

    public synchronized List<Seen> seen() {
        return List.copyOf(seen);
    }

    private void poll() {
        try {
            while (!stopped) {
                var records = consumer.poll(Duration.ofMillis(100));
                long now = System.nanoTime();
                List<Seen> batch = new ArrayList<>();
                for (ConsumerRecord<String, String> r : records) {
                    batch.add(new Seen(r.key(), r.value(), header(r, "message-id"), header(r, "message-type"),
                            header(r, "correlation-id"), r.partition(), r.offset(), now, r.timestamp()));
                }
                synchronized (this) {
                    seen.addAll(batch);
                }
            }
        } catch (WakeupException e) {
            // closing
        } finally {
            consumer.close();
        }
    }

    private static String header(ConsumerRecord<String, String> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        stopped = true;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
