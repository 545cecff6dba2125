package org.sagas.orchestrator.persistence;

import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.OutgoingMessage;

/**
 * Appends messages to the transactional outbox inside the caller's transaction; the relay
 * publishes them after commit. Stateless and thread-safe.
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
                + " correlation_id, payload) VALUES (:key, :topic, :id, :type, :correlation, :payload)");
        for (OutgoingMessage m : messages) {
            batch.bind("key", m.key()).bind("topic", m.topic()).bind("id", UUID.randomUUID())
                    .bind("type", m.type()).bind("correlation", correlationId.apply(m))
                    .bind("payload", Json.write(m.payload())).add();
        }
        batch.execute();
    }
}
