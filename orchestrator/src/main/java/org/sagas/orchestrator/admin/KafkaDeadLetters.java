package org.sagas.orchestrator.admin;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Kafka's dead-letter topics ({@code <topic>.dlt}): what is in them, and sending one record back to
 * the topic it came from. Implementations are thread-safe.
 */
public interface KafkaDeadLetters {
    /** The header a redriven record carries: the dead-letter record it copies ({@code topic/partition@offset}). */
    String REDRIVE_HEADER = "dlt-redrive";

    /** A dead-letter topic and how many records it holds. */
    record Topic(String topic, String sourceTopic, long records) {}

    /**
     * One dead-lettered record.
     *
     * @param reason its {@code dlt-reason} header
     * @param value its body as text (UTF-8)
     */
    record Record(String topic, int partition, long offset, Instant timestamp, String key,
            Map<String, String> headers, String reason, String value) {}

    /** Where a redriven record was written. */
    record Redriven(String topic, int partition, long offset) {}

    /** The product's dead-letter topics. */
    List<Topic> topics();

    /**
     * Up to {@code limit} records of dead-letter topic {@code topic}, oldest first.
     *
     * @throws IllegalArgumentException when {@code topic} is not a dead-letter topic of the broker
     */
    List<Record> records(String topic, int limit);

    /** The record at {@code topic/partition@offset}, if there is one. */
    Optional<Record> record(String topic, int partition, long offset);

    /**
     * Writes {@code record} to its source topic with the same key, value and headers, plus
     * {@link #REDRIVE_HEADER}; waits for the broker's acknowledgement.
     */
    Redriven redrive(Record record);
}
