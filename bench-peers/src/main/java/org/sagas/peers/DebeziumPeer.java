package org.sagas.peers;

import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * Debezium embedded (PostgreSQL connector, {@code pgoutput}, {@code poll.interval.ms=10}) reading
 * the {@code outbox} table from the write-ahead log through the outbox {@code EventRouter} SMT:
 * the row's {@code topic} picks the destination, {@code aggregate_id} is the key, {@code payload}
 * the value and {@code message_id} the {@code id} header; deletes are dropped by the SMT. Each
 * routed event is sent with the relay's producer settings.
 *
 * <p>Offsets are kept in a file, so that a second engine on the same {@link Settings} resumes where
 * the first stopped: the slot keeps the log written while no engine ran. {@link #close()} stops the
 * engine and, when {@code dropSlotOnStop}, drops the slot. Not thread-safe.
 */
final class DebeziumPeer implements AutoCloseable {
    private final DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    private final ExecutorService executor = Executors.newSingleThreadExecutor();
    private final KafkaProducer<String, String> producer;

    /** One database's connection, slot and offset file; shared by the engines started on it. */
    record Settings(String jdbcUrl, String user, String password, String bootstrapServers, String slot,
            Path offsets) {}

    DebeziumPeer(Settings settings, boolean dropSlotOnStop, Acks acks) {
        this.producer = Kafka.producer(settings.bootstrapServers());
        this.engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class)).using(properties(settings, dropSlotOnStop))
                .notifying(event -> send(event.record(), acks)).build();
        executor.execute(engine);
    }

    private void send(SourceRecord routed, Acks acks) {
        Header id = routed.headers().lastWithName("id");
        if (id == null || routed.value() == null) {
            throw new IllegalStateException("not an outbox event: " + routed);
        }
        UUID messageId = UUID.fromString(id.value().toString());
        String topic = routed.topic();
        producer.send(Kafka.record(topic, (String) routed.key(), (String) routed.value(), messageId),
                (metadata, error) -> {
                    if (error == null) {
                        acks.acknowledged(topic, messageId, System.nanoTime());
                    }
                });
    }

    private static Properties properties(Settings s, boolean dropSlotOnStop) {
        URI uri = URI.create(s.jdbcUrl().substring("jdbc:".length()));
        Properties p = new Properties();
        p.setProperty("name", "peers-debezium");
        p.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        p.setProperty("offset.storage.file.filename", s.offsets().toString());
        p.setProperty("offset.flush.interval.ms", "1000");
        p.setProperty("database.hostname", uri.getHost());
        p.setProperty("database.port", String.valueOf(uri.getPort()));
        p.setProperty("database.user", s.user());
        p.setProperty("database.password", s.password());
        p.setProperty("database.dbname", uri.getPath().substring(1));
        p.setProperty("topic.prefix", "peers");
        p.setProperty("plugin.name", "pgoutput");
        p.setProperty("slot.name", s.slot());
        p.setProperty("slot.drop.on.stop", String.valueOf(dropSlotOnStop));
        p.setProperty("publication.name", "peers_outbox");
        p.setProperty("publication.autocreate.mode", "filtered");
        p.setProperty("table.include.list", "public.outbox");
        // Only what is written once the slot exists: the outbox rows are deleted in the
        // transaction that inserts them, so a snapshot would find nothing anyway.
        p.setProperty("snapshot.mode", "no_data");
        p.setProperty("poll.interval.ms", "10");
        p.setProperty("transforms", "outbox");
        p.setProperty("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        p.setProperty("transforms.outbox.table.field.event.id", "message_id");
        p.setProperty("transforms.outbox.table.field.event.key", "aggregate_id");
        p.setProperty("transforms.outbox.table.field.event.payload", "payload");
        p.setProperty("transforms.outbox.route.by.field", "topic");
        p.setProperty("transforms.outbox.route.topic.replacement", "${routedByValue}");
        return p;
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
