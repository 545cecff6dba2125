package org.sagas.relay;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.sagas.relay.internal.OutboxRow;

/**
 * Writes messages to the {@code outbox} table inside the caller's transaction, for the relay to
 * publish after commit: the one writer of the row format the relay reads ({@link OutboxRow}).
 * Consecutive messages with the same key, correlation id and traceparent share one row: its own
 * columns hold the first, column {@code more} the others (V11), so a transaction's messages for one
 * aggregate cost one insert and one relay delete and are published in order. Each message gets a
 * fresh message id. Stateless and thread-safe.
 */
public final class Outbox {
    private Outbox() {}

    /**
     * A message to publish.
     *
     * @param key the record key and the aggregate whose messages keep their order
     * @param payload the record value, JSON text
     * @param correlationId carried as a header (e.g. the saga id); null for none
     * @param traceparent the W3C trace context for the record's headers; null for none
     */
    public record Message(String key, String topic, String type, String payload, String correlationId,
            String traceparent) {
        public Message {
            Objects.requireNonNull(key, "key");
            Objects.requireNonNull(topic, "topic");
            Objects.requireNonNull(type, "type");
            Objects.requireNonNull(payload, "payload");
        }

        private boolean sharesRowWith(Message first) {
            return key.equals(first.key) && Objects.equals(correlationId, first.correlationId)
                    && Objects.equals(traceparent, first.traceparent);
        }
    }

    /** Appends {@code messages} in their order, in one statement; nothing when empty. */
    public static void append(Handle handle, List<Message> messages) {
        if (messages.isEmpty()) {
            return;
        }
        PreparedBatch batch = handle.prepareBatch("INSERT INTO outbox (aggregate_id, topic, message_id, message_type,"
                + " correlation_id, payload, traceparent, more) VALUES (:key, :topic, :id, :type, :correlation,"
                + " :payload, :traceparent, NULLIF(CAST(:more AS text[]), '{}'))");
        int i = 0;
        while (i < messages.size()) {
            Message first = messages.get(i);
            List<OutboxRow.Message> more = new ArrayList<>();
            int j = i + 1;
            // A message for another key starts a row of its own, so each aggregate's chain stays in order.
            for (; j < messages.size() && messages.get(j).sharesRowWith(first); j++) {
                Message m = messages.get(j);
                more.add(new OutboxRow.Message(m.topic(), UUID.randomUUID(), m.type(), m.payload()));
            }
            batch.bind("key", first.key()).bind("topic", first.topic()).bind("id", UUID.randomUUID())
                    .bind("type", first.type()).bind("correlation", first.correlationId())
                    .bind("payload", first.payload()).bind("traceparent", first.traceparent())
                    .bindArray("more", String.class, OutboxRow.flatten(more)).add();
            i = j;
        }
        batch.execute();
    }
}
