package org.sagas.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Three brokers make one replicated cluster: a topic created with the cluster's defaults has
 * three replicas and needs two in sync, and with one broker killed a write acknowledged by all
 * in-sync replicas still goes through; the killed broker starts again on its data and rejoins.
 */
class KafkaClusterIT {
    private final ScratchDirectory scratch = ScratchDirectory.create("sagas-kafka-cluster-test-");
    private KafkaCluster cluster;

    @AfterEach
    void cleanUp() {
        if (cluster != null) {
            cluster.close();
        }
        ChildJvm.processesNaming(scratch.path()).forEach(ProcessHandle::destroyForcibly);
        scratch.close();
    }

    @Test
    void shouldReplicateEveryTopicThreeTimesAndTakeWritesWithABrokerDown() throws Exception {
        // Given a cluster of three
        cluster = KafkaCluster.of(scratch.path().resolve("kafka"), 3).start();
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            // When a topic is created with the cluster's defaults
            admin.createTopics(List.of(new NewTopic("t", Optional.of(4), Optional.empty()))).all()
                    .get(60, TimeUnit.SECONDS);

            // Then each partition has three replicas, and a write needs two in sync
            TopicDescription t = admin.describeTopics(List.of("t")).allTopicNames().get(30, TimeUnit.SECONDS).get("t");
            assertThat(t.partitions()).allSatisfy(p -> assertThat(p.replicas()).hasSize(3));
            ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "t");
            Config config = admin.describeConfigs(List.of(topic)).all().get(30, TimeUnit.SECONDS).get(topic);
            assertThat(config.get("min.insync.replicas").value()).isEqualTo("2");

            // And with a broker killed, an acks=all write still succeeds
            cluster.member(1).kill();
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                    "bootstrap.servers", cluster.member(2).bootstrapServers(), "acks", "all",
                    "delivery.timeout.ms", 60_000, "request.timeout.ms", 10_000),
                    new StringSerializer(), new StringSerializer())) {
                for (int i = 0; i < 8; i++) {
                    RecordMetadata sent = producer.send(new ProducerRecord<>("t", "k" + i, "v")).get(90,
                            TimeUnit.SECONDS);
                    assertThat(sent.offset()).isGreaterThanOrEqualTo(0);
                }
            }

            // And the killed broker starts again on its data and is back in the cluster
            cluster.member(1).start();
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(3);
        }
    }
}
