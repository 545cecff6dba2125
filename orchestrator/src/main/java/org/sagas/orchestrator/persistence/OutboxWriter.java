package org.sagas.orchestrator.persistence;

import java.util.ArrayList;
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
 * publishes them after commit. Consecutive messages for the same key (aggregate) share one row: its
 * own columns hold the first, column {@code more} the others (V11), so a transition's messages for
 * one order cost one insert and one relay delete. Each row stores the traceparent of the span
 * current on the calling thread, or the one given per message (null while tracing is off; ADR
 * 0018); messages share a row only when they share it. Stateless and thread-safe.
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
        Function<OutgoingMessage, String> traceOf;
        if (traceparentOf != null) {
            traceOf = traceparentOf;
        } else {
            String current = Traceparent.current();
            traceOf = m -> current;
        }
        PreparedBatch batch = handle.prepareBatch("INSERT INTO outbox (aggregate_id, topic, message_id, message_type,"
                + " correlation_id, payload, traceparent, more) VALUES (:key, :topic, :id, :type, :correlation,"
                + " :payload, :traceparent, NULLIF(CAST(:more AS text[]), '{}'))");
        int i = 0;
        while (i < messages.size()) {
            OutgoingMessage first = messages.get(i);
            String correlation = correlationId.apply(first);
            String traceparent = traceOf.apply(first);
            List<String> more = new ArrayList<>();
            int j = i + 1;
            // Same key, correlation and trace: one row. (A message for another key starts a row of its
            // own, so each aggregate's chain stays in order.)
            while (j < messages.size() && messages.get(j).key().equals(first.key())
                    && java.util.Objects.equals(correlationId.apply(messages.get(j)), correlation)
                    && java.util.Objects.equals(traceOf.apply(messages.get(j)), traceparent)) {
                OutgoingMessage m = messages.get(j);
                more.add(m.topic());
                more.add(UUID.randomUUID().toString());
                more.add(m.type());
                more.add(Json.write(m.payload()));
                j++;
            }
            batch.bind("key", first.key()).bind("topic", first.topic()).bind("id", UUID.randomUUID())
                    .bind("type", first.type()).bind("correlation", correlation)
                    .bind("payload", Json.write(first.payload())).bind("traceparent", traceparent)
                    .bindArray("more", String.class, more.toArray()).add();
            i = j;
        }
        batch.execute();
    }
}
