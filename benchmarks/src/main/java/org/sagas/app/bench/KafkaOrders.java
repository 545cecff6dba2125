package org.sagas.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.sagas.app.events.PlaceOrderCommand;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.Topics;

/**
 * The benchmarks' client through Kafka ({@code --via kafka}): each order a {@code PlaceOrder} on
 * {@code orders.commands}, its outcome read back from {@code orders.events} by the command's
 * {@code message-id}; the time from send to outcome is the command's latency. Beside it, the lag of
 * the api's {@code order-commands} consumer group, sampled every {@value #LAG_EVERY_MS} ms.
 * Thread-safe: {@link #send} from any thread; one reader and one sampler thread of its own.
 */
public final class KafkaOrders implements AutoCloseable {
    static final long LAG_EVERY_MS = 500;
    /** The api's consumer group of orders.commands (OrderCommandConsumer.CONSUMER). */
    static final String GROUP = "order-commands";

    private final KafkaProducer<String, byte[]> producer;
    private final KafkaConsumer<String, byte[]> reader;
    private final Admin admin;
    private final Map<String, Long> sentAt = new ConcurrentHashMap<>();
    private final Latencies latencies = new Latencies();
    private final Map<String, AtomicInteger> outcomes = new ConcurrentHashMap<>();
    private final Map<UUID, Boolean> accepted = new ConcurrentHashMap<>();
    private final AtomicLong maxLag = new AtomicLong();
    private final AtomicInteger lagSamplesMissed = new AtomicInteger();
    private final Map<TopicPartition, OffsetSpec> commandPartitions = new java.util.HashMap<>();
    private final Thread reading;
    private final Thread sampling;
    private volatile boolean running = true;

    public KafkaOrders(KafkaConnection kafka) {
        this.producer = new KafkaProducer<>(kafka.config(Map.of(ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 1)), new StringSerializer(), new ByteArraySerializer());
        this.reader = new KafkaConsumer<>(kafka.config(Map.of(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed")), new StringDeserializer(),
                new ByteArrayDeserializer());
        List<TopicPartition> partitions = reader.partitionsFor(Topics.ORDERS_EVENTS, Duration.ofSeconds(15)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        reader.assign(partitions);
        reader.seekToEnd(partitions);
        partitions.forEach(reader::position); // the start is fixed before the first command is sent
        reader.partitionsFor(Topics.ORDERS_COMMANDS, Duration.ofSeconds(15)).forEach(p -> commandPartitions.put(
                new TopicPartition(p.topic(), p.partition()), OffsetSpec.latest()));
        this.admin = Admin.create(kafka.config());
        this.reading = new Thread(this::read, "bench-kafka-outcomes");
        this.sampling = new Thread(this::sampleLag, "bench-kafka-lag");
        reading.setDaemon(true);
        sampling.setDaemon(true);
        reading.start();
        sampling.start();
    }

    /** Sends one PlaceOrder (key: its reference) without waiting for the broker. */
    public void send(String customer, String sku, int quantity, long unitPriceCents) {
        String reference = "bench-" + UUID.randomUUID();
        String id = UUID.randomUUID().toString();
        PlaceOrderCommand.PlaceOrder order = new PlaceOrderCommand.PlaceOrder(customer, "EUR",
                List.of(new PlaceOrderCommand.Line(sku, quantity, unitPriceCents)), reference, reference);
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(Topics.ORDERS_COMMANDS, reference,
                Json.write(order).getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_ID, id.getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.MESSAGE_TYPE, "PlaceOrder".getBytes(StandardCharsets.UTF_8));
        record.headers().add(Topics.CORRELATION_ID, reference.getBytes(StandardCharsets.UTF_8));
        sentAt.put(id, System.nanoTime());
        producer.send(record, (meta, e) -> {
            if (e != null && sentAt.remove(id) != null) {
                count("failed");
            }
        });
    }

    /**
     * Sends {@code total} orders at {@code rate} per second, open loop (never waiting for an
     * outcome to send the next), order {@code i} on SKU {@code skus[i % skus.size()]};
     * {@code afterEach} is given the number sent so far after each send (progress lines, a fault
     * switched on at a given second).
     */
    public void sendAtRate(int rate, int total, String customer, List<String> skus, IntConsumer afterEach)
            throws InterruptedException {
        long start = System.nanoTime();
        for (int i = 0; i < total; i++) {
            long wait = start + i * 1_000_000_000L / rate - System.nanoTime();
            if (wait > 0) {
                TimeUnit.NANOSECONDS.sleep(wait);
            }
            send(customer, skus.get(i % skus.size()), 1, 500);
            afterEach.accept(i + 1);
        }
    }

    /** Commands sent whose outcome has not been read (yet). */
    public int unanswered() {
        return sentAt.size();
    }

    /** Waits until every command sent has its outcome, or {@code within} passed; true when all came. */
    public boolean awaitOutcomes(Duration within) throws InterruptedException {
        producer.flush();
        long end = System.nanoTime() + within.toNanos();
        while (!sentAt.isEmpty() && System.nanoTime() - end < 0) {
            TimeUnit.MILLISECONDS.sleep(100);
        }
        return sentAt.isEmpty();
    }

    /** Send to outcome, per command. */
    public Latencies latencies() {
        return latencies;
    }

    /** Outcomes by kind: accepted, parked (PENDING_CONFIRMATION), refused, failed (not sent). */
    public Map<String, AtomicInteger> outcomes() {
        return outcomes;
    }

    /** The orders accepted (placed). */
    public Map<UUID, Boolean> accepted() {
        return accepted;
    }

    /** The largest lag of the order-commands group seen, in records, over all partitions. */
    public long maxLag() {
        return maxLag.get();
    }

    /** Lag samples that could not be taken (reported beside the lag). */
    public int lagSamplesMissed() {
        return lagSamplesMissed.get();
    }

    private void read() {
        while (running) {
            try {
                for (ConsumerRecord<String, byte[]> r : reader.poll(Duration.ofMillis(200))) {
                    Long t0 = sentAt.remove(header(r, Topics.CORRELATION_ID));
                    if (t0 == null) {
                        continue;
                    }
                    latencies.add((System.nanoTime() - t0) / 1000);
                    JsonNode body = Json.mapper().readTree(r.value());
                    if ("OrderCommandAccepted".equals(header(r, Topics.MESSAGE_TYPE))) {
                        accepted.put(UUID.fromString(body.path("orderId").asText()), true);
                        count("PENDING_CONFIRMATION".equals(body.path("status").asText()) ? "parked" : "accepted");
                    } else {
                        count("refused");
                    }
                }
            } catch (org.apache.kafka.common.errors.WakeupException e) {
                return;
            } catch (java.io.IOException | RuntimeException e) {
                count("unreadable_outcome");
            }
        }
    }

    private void sampleLag() {
        while (running) {
            try {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata().get(5, TimeUnit.SECONDS);
                var ends = admin.listOffsets(commandPartitions).all().get(5, TimeUnit.SECONDS);
                long lag = 0;
                for (var e : ends.entrySet()) {
                    OffsetAndMetadata c = committed.get(e.getKey());
                    lag += e.getValue().offset() - (c == null ? 0 : c.offset());
                }
                long seen = lag;
                maxLag.accumulateAndGet(seen, Math::max);
            } catch (InterruptedException e) {
                return;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException
                    | RuntimeException e) {
                // A sample missed (the group not formed yet, the broker slow): counted, the next one counts.
                lagSamplesMissed.incrementAndGet();
            }
            try {
                TimeUnit.MILLISECONDS.sleep(LAG_EVERY_MS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void count(String kind) {
        outcomes.computeIfAbsent(kind, k -> new AtomicInteger()).incrementAndGet();
    }

    private static String header(ConsumerRecord<String, byte[]> r, String name) {
        Header h = r.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        sampling.interrupt();
        reader.wakeup();
        reading.join(5_000);
        sampling.join(5_000);
        reader.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
        producer.close(Duration.ofSeconds(5));
        admin.close(Duration.ofSeconds(5));
    }
}
