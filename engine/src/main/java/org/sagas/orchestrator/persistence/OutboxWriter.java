package org.sagas.orchestrator.persistence;

import java.util.List;
import java.util.function.Function;
import org.jdbi.v3.core.Handle;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.OutgoingMessage;
import org.sagas.orchestrator.tracing.Traceparent;
import org.sagas.relay.Outbox;

/**
 * Appends the saga's messages to the transactional outbox inside the caller's transaction, through
 * the relay module's {@link Outbox} (which owns the row format; consecutive messages for one key
 * share a row); the relay publishes them after commit. Payloads are written as JSON; each message
 * carries the traceparent of the span current on the calling thread, or the one given per message
 * (null while tracing is off; ADR 0018). Stateless and thread-safe.
 */
public final class OutboxWriter {
    private OutboxWriter() {}

    /** Appends {@code messages}, all correlated with {@code correlationId} (e.g. their saga). */
    public static void append(Handle handle, List<OutgoingMessage> messages, String correlationId) {
        append(handle, messages, m -> correlationId, null);
    }

    /** Appends {@code messages}, each correlated with its own key (e.g. replies for several orders). */
    public static void append(Handle handle, List<OutgoingMessage> messages) {
        append(handle, messages, OutgoingMessage::key, null);
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
            Function<OutgoingMessage, String> correlationId, Function<OutgoingMessage, String> traceparentOf) {
        // In the same statement: tracing adds no round trip and no row.
        Function<OutgoingMessage, String> traceOf;
        if (traceparentOf != null) {
            traceOf = traceparentOf;
        } else {
            String current = Traceparent.current();
            traceOf = m -> current;
        }
        Outbox.append(handle, messages.stream().map(m -> new Outbox.Message(m.key(), m.topic(), m.type(),
                Json.write(m.payload()), correlationId.apply(m), traceOf.apply(m))).toList());
    }
}
