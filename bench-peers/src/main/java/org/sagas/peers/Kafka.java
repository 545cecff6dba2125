package org.sagas.peers;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringSerializer;

/** The producer the peers publish with: the same settings as the relay's (idempotent, acks=all, no linger). */
final class Kafka {
    private Kafka() {}

    static KafkaProducer<String, String> producer(String bootstrapServers) {
        return new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5,
                ProducerConfig.LINGER_MS_CONFIG, 0),
                new StringSerializer(), new StringSerializer());
    }

    static ProducerRecord<String, String> record(String topic, String key, String payload, UUID messageId) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("message-id", messageId.toString().getBytes(StandardCharsets.UTF_8));
        return new ProducerRecord<>(topic, null, key, payload, headers);
    }
}
