package org.sagas.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;

@RealInfrastructure
class InfrastructureIT {

    @Test
    void shouldWriteAndReadARowInTheClassDatabase(TestInfra infra) throws Exception {
        try (Connection c = infra.dataSource().getConnection(); Statement s = c.createStatement()) {
            // Given a table in this class's own database
            s.execute("CREATE TABLE probe (id int PRIMARY KEY, name text)");
            // When a row is written
            s.execute("INSERT INTO probe VALUES (1, 'written')");
            // Then it reads back, and the database is not the default one
            ResultSet rs = s.executeQuery("SELECT name, current_database() FROM probe");
            assertThat(rs.next()).isTrue();
            assertThat(rs.getString(1)).isEqualTo("written");
            assertThat(rs.getString(2)).startsWith("infrastructureit_");
        }
    }

    @Test
    void shouldProduceAndConsumeARecordOnAUniqueTopic(TestInfra infra) throws Exception {
        String topic = infra.createTopic(infra.topic("probe"), 1);
        try (var producer = new KafkaProducer<String, String>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all"), new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(topic, "order-1", "hello")).get();
        }
        List<ConsumerRecord<String, String>> seen = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers(),
                ConsumerConfig.GROUP_ID_CONFIG, "probe",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(seen::add);
                return !seen.isEmpty();
            });
        }
        assertThat(seen).singleElement().satisfies(r -> {
            assertThat(r.key()).isEqualTo("order-1");
            assertThat(r.value()).isEqualTo("hello");
        });
    }
}
