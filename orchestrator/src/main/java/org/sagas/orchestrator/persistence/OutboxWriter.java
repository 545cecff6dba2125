package org.sagas.orchestrator.persistence;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.OutgoingMessage;

/**
 * Appends messages to the transactional outbox inside the caller's transaction; the relay
 * publishes them after commit. Consecutive messages for the same key (aggregate) share one row: its
 * own columns hold the first, column {@code more} the others (V11), so a transition's messages for
 * one order cost one insert and one relay delete. Stateless and thread-safe.
 */
public final class OutboxWriter {
    private OutboxWriter() {}

    /** Appends {@code messages}, all correlated with {@code correlationId} (e.g. their saga). */
    public static void append(Handle handle, List<OutgoingMessage> messages, String correlationId) {
        append(handle, messages, m -> correlationId);
    }

    /** Appends {@code messages}, each correlated with its own key (e.g. replies for several orders). */
    public static void append(Handle handle, List<OutgoingMessage> messages) {
        append(handle, messages, OutgoingMessage::key);
    }

    private static void append(Handle handle, List<OutgoingMessage> messages,
            Function<OutgoingMessage, String> correlationId) {
        if (messages.isEmpty()) {
            return;
        }
        PreparedBatch batch = handle.prepareBatch("INSERT INTO outbox (aggregate_id, topic, message_id, message_type,"
                + " correlation_id, payload, more) VALUES (:key, :topic, :id, :type, :correlation, :payload,"
                + " NULLIF(CAST(:more AS text[]), '{}'))");
        int i = 0;
        while (i < messages.size()) {
            OutgoingMessage first = messages.get(i);
            String correlation = correlationId.apply(first);
            List<String> more = new ArrayList<>();
            int j = i + 1;
            // Same key and correlation: one row. (A message for another key starts a row of its own,
            // so each aggregate's chain stays in order.)
            while (j < messages.size() && messages.get(j).key().equals(first.key())
                    && java.util.Objects.equals(correlationId.apply(messages.get(j)), correlation)) {
                OutgoingMessage m = messages.get(j);
                more.add(m.topic());
                more.add(UUID.randomUUID().toString());
                more.add(m.type());
                more.add(Json.write(m.payload()));
                j++;
            }
            batch.bind("key", first.key()).bind("topic", first.topic()).bind("id", UUID.randomUUID())
                    .bind("type", first.type()).bind("correlation", correlation)
                    .bind("payload", Json.write(first.payload()))
                    .bindArray("more", String.class, more.toArray()).add();
            i = j;
        }
        batch.execute();
    }
}
