package org.sagas.peers.saga;

import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.sagas.peers.saga.peer.OrderRequest;
import org.sagas.peers.saga.peer.SandboxClient;

/**
 * Not a contender: traffic that warms the freshly started sandbox services (reserve, charge,
 * release, as a saga makes them) and the broker (records produced and consumed) before the first
 * contender, which otherwise paid for their warm-up alone: the product, first in the run, found a
 * cold inventory answering past its 300 ms timeout, opened its breaker and parked most of its cold
 * phase's orders.
 */
final class WarmUp {
    static final String TOPIC = "peers-warm-up";
    private static final String SKU = "WARM-UP-";

    private WarmUp() {}

    static void run(Ledger ledger, SandboxClient sandbox, String bootstrapServers, Duration duration, PrintStream out)
            throws Exception {
        out.printf("warming up the sandbox services and the broker for %d s (not a contender, not measured)...%n",
                duration.toSeconds());
        for (int i = 0; i < 10; i++) {
            ledger.setStock(SKU + i, 1_000_000);
        }
        long end = System.nanoTime() + duration.toNanos();
        ExecutorService threads = Executors.newFixedThreadPool(5);
        List<Future<Integer>> work = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            work.add(threads.submit(() -> sagas(sandbox, end)));
        }
        work.add(threads.submit(() -> records(bootstrapServers, end)));
        threads.shutdown();
        int sagas = 0;
        for (int t = 0; t < 4; t++) {
            sagas += work.get(t).get();
        }
        out.printf("  %d saga-shaped call sequences, %d records through the broker%n", sagas, work.get(4).get());
        threads.awaitTermination(30, TimeUnit.SECONDS);
    }

    private static int sagas(SandboxClient sandbox, long end) {
        int n = 0;
        while (System.nanoTime() < end) {
            OrderRequest order = new OrderRequest("warm-up-" + UUID.randomUUID(), "warm-up", "EUR",
                    List.of(new OrderRequest.Line(SKU + (n % 10), 1, 990)), 990, 0, 0, false);
            sandbox.reserve(order);
            sandbox.charge(order);
            sandbox.release(order);
            sandbox.refund(order);
            n++;
        }
        return n;
    }

    private static int records(String bootstrapServers, long end) throws InterruptedException {
        int n = 0;
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer());
                KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers, ConsumerConfig.GROUP_ID_CONFIG,
                        "peers-warm-up", ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                        new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(TOPIC));
            while (System.nanoTime() < end) {
                for (int i = 0; i < 50; i++) {
                    producer.send(new ProducerRecord<>(TOPIC, "order-" + (n + i), "{\"warmUp\":true}"));
                }
                producer.flush();
                n += 50;
                // 500 records/s at most: enough to warm the broker, little enough to leave the cores to
                // the sandbox's warm-up.
                consumer.poll(Duration.ofMillis(100));
                Thread.sleep(100);
            }
        }
        return n;
    }
}
