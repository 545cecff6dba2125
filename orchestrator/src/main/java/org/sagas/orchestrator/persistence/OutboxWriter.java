package org.sagas.orchestrator.persistence;

import java.util.List;
import java.util.UUID;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.statement.PreparedBatch;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.sagas.orchestrator.tracing.Traceparent;

/**
 * Appends messages to the transactional outbox inside the caller's transaction; the relay
 * publishes them after commit. Each row stores the traceparent of the span current on the calling
 * thread (null while tracing is off; ADR 0018). Stateless and thread-safe.
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

    /**
     * Appends {@code messages}, each correlated with its own key and storing the traceparent
     * {@code traceparentOf} gives it (null for none): a batch's replies, each in its own trace.
     */
    public static void appendTraced(Handle handle, List<OutgoingMessage> messages,
            Function<OutgoingMessage, String> traceparentOf) {
        append(handle, messages, OutgoingMessage::key, traceparentOf);
    }

    private static void append(Handle handle, List<OutgoingMessage> messages,
            Function<OutgoingMessage, String> correlationId) {
        append(handle, messages, correlationId, null);
    }

    private static void append(Handle handle, List<OutgoingMessage> messages,
            Function<OutgoingMessage, String> correlationId, Function<OutgoingMessage, String> traceparentOf) {
        if (messages.isEmpty()) {
            return;
        }
        // In the same statement: tracing adds no round trip and no row.
        String current = traceparentOf == null ? Traceparent.current() : null;
        PreparedBatch batch = handle.prepareBatch("INSERT INTO outbox (aggregate_id, topic, message_id, message_type,"
                + " correlation_id, payload, traceparent) VALUES (:key, :topic, :id, :type, :correlation, :payload,"
                + " :traceparent)");
        for (OutgoingMessage m : messages) {
            batch.bind("key", m.key()).bind("topic", m.topic()).bind("id", UUID.randomUUID())
                    .bind("type", m.type()).bind("correlation", correlationId.apply(m))
                    .bind("payload", Json.write(m.payload()))
                    .bind("traceparent", traceparentOf == null ? current : traceparentOf.apply(m)).add();
        }
        batch.execute();
    }
}
