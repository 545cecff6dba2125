package org.sagas.adapters.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.sagas.orchestrator.messaging.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one topic in a group, at least once, handing each poll's records of a partition to the
 * handler in batches (one transaction each, for example): the offset is committed only after the
 * handler succeeded, so handlers must be idempotent (the inbox makes them so). A batch that fails
 * as a whole is handled again one record at a time, so that one bad record holds up only itself.
 * A record the handler rejects (or a {@link PoisonMessage}) goes to {@code <topic>.dlt} with the
 * reason in header {@code dlt-reason}; any other failure is retried after a back-off, never
 * dropped. Runs on its own thread; {@link #close()} stops it.
 */
public final class ConsumerLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

    private final String topic;
    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaProducer<String, byte[]> deadLetters;
    /** The most records handled together: bounds a transaction and the wait between two yields. */
    static final int MAX_BATCH = 20;

    private final BatchHandler handler;
    private final Runnable beforeEachBatch;
    private final Thread thread;
    private volatile boolean running = true;
    private final Counter retried;
    private final Counter deadLettered;

    /** A record failed and was logged; the loop goes back to the last committed offset. */
    private static final class RetryLater extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RetryLater(Throwable cause) {
            super(cause);
        }
    }

    /** Handles records of one partition together, in their order. */
    @FunctionalInterface
    public interface BatchHandler {
        /**
         * @return the records that can never be processed, each with why; they go to the
         *     dead-letter topic, the others counted as done
         * @throws RuntimeException when the batch failed as a whole and none of its effects stayed
         */
        List<Rejected> handle(List<ConsumerRecord<String, byte[]>> records);
    }

    /** A record the handler cannot process, and why. */
    public record Rejected(ConsumerRecord<String, byte[]> record, String reason) {}

    /**
     * @param beforeEachBatch runs before each batch is handled (e.g. waits while clients are
     *     busy, see {@code ForegroundFirst}); {@code () -> {}} for nothing
     */
    public ConsumerLoop(String bootstrapServers, String group, String topic, BatchHandler handler,
            Runnable beforeEachBatch, MeterRegistry registry) {
        this(bootstrapServers, group, topic, handler, beforeEachBatch, registry, Map.of());
    }

    /**
     * As above, with consumer properties on top of the loop's own (e.g. {@code isolation.level}
     * {@code read_committed} for a topic written in Kafka transactions).
     */
    public ConsumerLoop(String bootstrapServers, String group, String topic, BatchHandler handler,
            Runnable beforeEachBatch, MeterRegistry registry, Map<String, Object> consumerOverrides) {
        this.topic = topic;
        this.handler = handler;
        this.beforeEachBatch = beforeEachBatch;
        this.retried = Counter.builder("saga.consumer.retries").tag("topic", topic)
                .description("Records whose handling failed and will be retried").register(registry);
        this.deadLettered = Counter.builder("saga.dead.lettered").tag("topic", topic)
                .description("Records moved to the dead-letter topic").register(registry);
        Properties c = new Properties();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        // The broker answers as soon as a record arrives; the wait only bounds idle polls.
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 500);
        c.putAll(consumerOverrides);
        this.consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
        this.deadLetters = new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true),
                new StringSerializer(), new ByteArraySerializer());
        this.thread = new Thread(this::run, "consumer-" + topic);
        this.thread.setDaemon(true);
    }

    public ConsumerLoop start() {
        thread.start();
        return this;
    }

    private void run() {
        consumer.subscribe(List.of(topic));
        Duration backoff = Duration.ofMillis(100);
        while (running) {
            try {
                ConsumerRecords<String, byte[]> records = consumer.poll(Duration.ofMillis(200));
                Map<TopicPartition, OffsetAndMetadata> done = new java.util.HashMap<>();
                try {
                    for (TopicPartition partition : records.partitions()) {
                        List<ConsumerRecord<String, byte[]>> all = records.records(partition);
                        for (int from = 0; from < all.size(); from += MAX_BATCH) {
                            process(all.subList(from, Math.min(all.size(), from + MAX_BATCH)),
                                    r -> done.put(partition, new OffsetAndMetadata(r.offset() + 1)));
                        }
                    }
                } finally {
                    // What succeeded is committed even when a later record failed: less to redo.
                    if (!done.isEmpty()) {
                        consumer.commitSync(done);
                    }
                }
                backoff = Duration.ofMillis(100);
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException e) {
                if (!running) {
                    break;
                }
                if (!(e instanceof RetryLater)) {
                    log.warn("consumer of {} failed, retrying from the last committed offset in {} ms: {}", topic,
                            backoff.toMillis(), e.toString());
                }
                rewind();
                sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5)
                        : backoff.multipliedBy(2);
            }
        }
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ofSeconds(5)));
        deadLetters.close(Duration.ofSeconds(5));
    }

    /** Handles {@code batch}, calling {@code done} with the last record handled (or dead-lettered). */
    private void process(List<ConsumerRecord<String, byte[]>> batch, Consumer<ConsumerRecord<String, byte[]>> done) {
        beforeEachBatch.run();
        List<Rejected> rejected;
        try {
            rejected = handler.handle(batch);
        } catch (PoisonMessage poison) {
            if (batch.size() > 1) {
                oneByOne(batch, done);
                return;
            }
            rejected = List.of(new Rejected(batch.get(0), poison.getMessage()));
        } catch (RuntimeException e) {
            if (batch.size() > 1) {
                log.debug("{} batch of {} failed, handled again one record at a time: {}", topic, batch.size(),
                        e.toString());
                oneByOne(batch, done);
                return;
            }
            // The fallback for a failed effect is to retry it later: visible with the order and the cause.
            retried.increment();
            log.warn("{} record for order {} failed, retried after a back-off: {}", topic, batch.get(0).key(),
                    e.toString());
            throw new RetryLater(e);
        }
        for (Rejected r : rejected) {
            deadLetter(r.record(), r.reason());
            deadLettered.increment();
        }
        done.accept(batch.get(batch.size() - 1));
    }

    private void oneByOne(List<ConsumerRecord<String, byte[]>> batch, Consumer<ConsumerRecord<String, byte[]>> done) {
        for (ConsumerRecord<String, byte[]> record : batch) {
            process(List.of(record), done);
        }
    }

    private void deadLetter(ConsumerRecord<String, byte[]> record, String reason) {
        ProducerRecord<String, byte[]> dead = new ProducerRecord<>(Topics.deadLetter(topic), record.key(),
                record.value());
        record.headers().forEach(h -> dead.headers().add(h));
        dead.headers().add(Topics.DLT_REASON, reason.getBytes(StandardCharsets.UTF_8));
        dead.headers().add("dlt-source", (record.topic() + "/" + record.partition() + "@" + record.offset())
                .getBytes(StandardCharsets.UTF_8));
        try {
            deadLetters.send(dead).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while dead-lettering", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not dead-letter a message of " + topic, e);
        }
        log.warn("dead-lettered {}/{}@{} key {} to {}: {}", record.topic(), record.partition(), record.offset(),
                record.key(), Topics.deadLetter(topic), reason);
    }

    /** Goes back to the committed offsets so the failed record is read again. */
    private void rewind() {
        try {
            var assigned = consumer.assignment();
            var committed = consumer.committed(assigned, Duration.ofSeconds(5));
            for (TopicPartition p : assigned) {
                OffsetAndMetadata offset = committed.get(p);
                if (offset != null) {
                    consumer.seek(p, offset.offset());
                } else {
                    consumer.seekToBeginning(List.of(p));
                }
            }
        } catch (RuntimeException e) {
            log.warn("could not rewind {}: {}", topic, e.toString());
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        if (thread.getState() == Thread.State.NEW) {
            // Never started: the clients the loop would have closed on its way out are closed here.
            consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
            deadLetters.close(Duration.ZERO);
            return;
        }
        running = false;
        consumer.wakeup();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
