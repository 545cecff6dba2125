package org.sagas.reconciler;

import org.sagas.orchestrator.messaging.KafkaConnection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.ThreadMetadata;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Two reconciler instances (two KafkaStreams applications with the same id, in this JVM, each with
 * its own state directory) share the partitions with a standby replica each; one dies while
 * discrepancies are still in their grace period. Every finding must still be published, once, and
 * every refund requested once.
 */
@RealInfrastructure
class FailoverIT {
    private static final ReconcilerConfig FAST = new ReconcilerConfig(Duration.ofSeconds(2), Duration.ofSeconds(4),
            Duration.ofMinutes(5), Duration.ofMillis(200));

    @Test
    void shouldLoseNoFindingAndRequestNoSecondRefundWhenOneOfTwoInstancesDies(TestInfra infra) throws Exception {
        // Given two instances sharing the work, with standby replicas, and the findings sink
        var dataSource = infra.dataSource(4);
        Migrations.apply(dataSource);
        Jdbi jdbi = Jdbi.create(dataSource);
        String bootstrap = infra.bootstrapServers();
        KafkaTopics.ensure(bootstrap);
        String app = "failover-" + UUID.randomUUID().toString().substring(0, 8);
        ReconcilerStreams a = instance(bootstrap, app);
        ReconcilerStreams b = instance(bootstrap, app);
        FindingSink sink = new FindingSink(jdbi, orderId -> Optional.empty(), KafkaConnection.plaintext(bootstrap), () -> {},
                new SimpleMeterRegistry()).start();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all"),
                new StringSerializer(), new StringSerializer())) {
            await().atMost(Duration.ofSeconds(90)).until(() -> running(a) && running(b)
                    && activeTasks(a) > 0 && activeTasks(b) > 0 && standbyTasks(a) + standbyTasks(b) > 0);
            // When captures for unknown orders arrive, and one instance dies within their grace period
            List<String> orders = new ArrayList<>();
            for (int i = 0; i < 20; i++) {
                orders.add(charge(producer, i));
            }
            producer.flush();
            // A part of the 4 s grace: the suspicions are in the instances' state, not yet findings
            await().pollDelay(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(2)).until(() -> true);
            a.close();
            for (int i = 20; i < 40; i++) {
                orders.add(charge(producer, i));
            }
            producer.flush();

            // Then every capture becomes one finding with one refund requested
            await().atMost(Duration.ofSeconds(120)).until(() -> stored(jdbi, orders) == orders.size());
            Set<String> mine = new HashSet<>(orders);
            List<ConsumerRecord<String, String>> published = KafkaTopics.read(bootstrap,
                    Topics.RECONCILIATION_FINDINGS, mine::contains, orders.size(), Duration.ofSeconds(5));
            assertThat(published).hasSize(orders.size());
            assertThat(published).extracting(ConsumerRecord::key).containsExactlyInAnyOrderElementsOf(orders);
            List<String> refunds = jdbi.withHandle(h -> h.createQuery("SELECT aggregate_id FROM outbox"
                    + " WHERE topic = :t AND message_type = 'RefundCharge'").bind("t", Topics.RECONCILIATION_REPAIRS)
                    .mapTo(String.class).list()).stream().filter(mine::contains).toList();
            assertThat(refunds).containsExactlyInAnyOrderElementsOf(orders);
            int requested = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM reconciliation_finding"
                    + " WHERE repair = 'REQUESTED' AND kind = 'CHARGED_NOT_CONFIRMED' AND order_id = ANY(:o)")
                    .bindArray("o", String.class, orders.toArray()).mapTo(Integer.class).one());
            assertThat(requested).isEqualTo(orders.size());
        } finally {
            sink.close();
            b.close();
            a.close();
        }
    }

    private static ReconcilerStreams instance(String bootstrap, String app) throws Exception {
        Path dir = Files.createTempDirectory(Path.of("target"), "failover-state-");
        return new ReconcilerStreams(FAST, ReconcilerStreams.properties(KafkaConnection.plaintext(bootstrap), app, dir.toAbsolutePath(), 1))
                .start();
    }

    private static String charge(KafkaProducer<String, String> producer, int i) {
        String order = "unknown-" + UUID.randomUUID();
        String key = order + ":charge";
        String value = Json.write(Map.of("idempotencyKey", key, "orderId", order, "amountCents", 100 + i,
                "currency", "EUR", "status", "CAPTURED", "cursor", "5." + i));
        ProducerRecord<String, String> record = new ProducerRecord<>(Topics.LEDGER_CHARGES,
                LedgerPartitioning.partition(order, 4), key, value);
        record.headers().add(Topics.MESSAGE_TYPE, "ChargeChanged".getBytes(StandardCharsets.UTF_8));
        producer.send(record);
        return order;
    }

    private static int stored(Jdbi jdbi, List<String> orders) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM reconciliation_finding WHERE order_id = ANY(:o)")
                .bindArray("o", String.class, orders.toArray()).mapTo(Integer.class).one());
    }

    private static boolean running(ReconcilerStreams s) {
        return s.state() == KafkaStreams.State.RUNNING;
    }

    private static int activeTasks(ReconcilerStreams s) {
        return s.streams().metadataForLocalThreads().stream().mapToInt(t -> t.activeTasks().size()).sum();
    }

    private static int standbyTasks(ReconcilerStreams s) {
        return s.streams().metadataForLocalThreads().stream().map(ThreadMetadata::standbyTasks).mapToInt(Set::size)
                .sum();
    }
}
