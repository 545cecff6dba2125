package org.sagas.peers;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.io.IOException;
import java.net.URI;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;

/**
 * Debezium embedded (PostgreSQL connector, {@code pgoutput}, {@code poll.interval.ms=10}) reading
 * the same {@code outbox} table from the write-ahead log, each insert sent with the relay's
 * producer settings. Started before the writer; {@link #close()} stops it and drops its slot.
 */
final class DebeziumPeer implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final DebeziumEngine<ChangeEvent<String, String>> engine;
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final KafkaProducer<String, String> producer;

    DebeziumPeer(String jdbcUrl, String user, String password, String bootstrapServers, String topic,
            SteadyWriter writer) {
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        Properties p = new Properties();
        p.setProperty("name", "peers-debezium");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.setProperty("offset.flush.interval.ms", "60000");
        p.setProperty("database.hostname", uri.getHost());
        p.setProperty("database.port", String.valueOf(uri.getPort()));
        p.setProperty("database.user", user);
        p.setProperty("database.password", password);
        p.setProperty("database.dbname", uri.getPath().substring(1));
        p.setProperty("topic.prefix", "peers");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", "peers_" + uri.getPath().substring(1));
        p.setProperty("slot.drop.on.stop", "true");
        p.setProperty("publication.name", "peers_outbox");
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty("table.include.list", "public.outbox");
        p.setProperty("snapshot.mode", "no_data");
        p.setProperty("poll.interval.ms", "10");
        p.setProperty("key.converter.schemas.enable", "false");
        p.setProperty("value.converter.schemas.enable", "false");
        this.producer = Kafka.producer(bootstrapServers);
        this.engine = DebeziumEngine.create(Json.class).using(p).notifying(event -> {
            if (event.value() == null) {
                return;
            }
            try {
                JsonNode value = JSON.readTree(event.value());
                JsonNode after = value.path("after");
                if (!"c".equals(value.path("op").asText()) || after.isMissingNode()) {
                    return;
                }
                UUID messageId = UUID.fromString(after.path("message_id").asText());
                producer.send(Kafka.record(topic, after.path("aggregate_id").asText(), after.path("payload").asText(),
                        messageId), (metadata, error) -> {
                            if (error == null) {
                                writer.acknowledged(messageId, System.nanoTime());
                            }
                        });
            } catch (IOException e) {
                throw new IllegalStateException("unreadable change event: " + event.value(), e);
            }
        }).build();
        executor.execute(engine);
    }

    @Override
    public void close() throws IOException {
        engine.close();
        executor.shutdown();
        try {
            executor.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close();
    }

    boolean running() {
        return !executor.isTerminated();
    }
}
