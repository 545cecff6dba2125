package org.sagas.relay.internal;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * One committed, unpublished outbox row, as the relay reads it; {@code shard} is the row's lease
 * shard, which the relay's delete looks the row up by (see {@link RelaySession}); {@code traceparent}
 * is the W3C trace context its writer stored (null when it traced nothing), for every message of the
 * row. A row may carry {@code more} messages after its own (column {@code more}, V11): one
 * transaction's messages for one aggregate, published in order, with the row's key and correlation
 * id; the row counts as published once the last of them is acknowledged.
 */
public record OutboxRow(
        long id,
        int shard,
        String aggregateId,
        String topic,
        UUID messageId,
        String messageType,
        String correlationId,
        String payload,
        Instant createdAt,
        String traceparent,
        List<Message> more) {

    /** A further message of a row. */
    public record Message(String topic, UUID messageId, String messageType, String payload) {}

    public OutboxRow {
        more = more == null ? List.of() : List.copyOf(more);
    }

    /** A row with one message. */
    public OutboxRow(long id, int shard, String aggregateId, String topic, UUID messageId, String messageType,
            String correlationId, String payload, Instant createdAt, String traceparent) {
        this(id, shard, aggregateId, topic, messageId, messageType, correlationId, payload, createdAt, traceparent,
                List.of());
    }

    /** Message {@code part} of the row: 0 its own, 1.. its {@code more}. */
    Message part(int part) {
        return part == 0 ? new Message(topic, messageId, messageType, payload) : more.get(part - 1);
    }

    /**
     * Column {@code more} of {@code messages}: (topic, message id, message type, payload) four by
     * four, as {@link #more} reads it back; written by {@link org.sagas.relay.Outbox} alone.
     */
    public static String[] flatten(List<Message> messages) {
        String[] flat = new String[messages.size() * 4];
        int i = 0;
        for (Message m : messages) {
            flat[i++] = m.topic();
            flat[i++] = m.messageId().toString();
            flat[i++] = m.messageType();
            flat[i++] = m.payload();
        }
        return flat;
    }

    /** Reads column {@code more}: (topic, message id, message type, payload) four by four. */
    static List<Message> more(String[] flat) {
        if (flat == null || flat.length == 0) {
            return List.of();
        }
        if (flat.length % 4 != 0) {
            throw new IllegalArgumentException("outbox column more must hold groups of four, has " + flat.length);
        }
        List<Message> out = new java.util.ArrayList<>(flat.length / 4);
        for (int i = 0; i < flat.length; i += 4) {
            out.add(new Message(flat[i], UUID.fromString(flat[i + 1]), flat[i + 2], flat[i + 3]));
        }
        return out;
    }
}
