package org.sagas.adapters.messaging;

import com.fasterxml.jackson.databind.JsonNode;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.tracing.Tracing;

/** Reads the envelope every message carries (headers + JSON body); anything missing is poison. */
public final class ParsedMessage {
    private ParsedMessage() {}

    /** @throws PoisonMessage naming what is wrong */
    public static IncomingMessage parse(ConsumerRecord<String, byte[]> record) {
        String id = header(record, Topics.MESSAGE_ID);
        String type = header(record, Topics.MESSAGE_TYPE);
        if (id == null || type == null || type.isBlank()) {
            throw new PoisonMessage("missing header " + (id == null ? Topics.MESSAGE_ID : Topics.MESSAGE_TYPE));
        }
        UUID messageId;
        try {
            messageId = UUID.fromString(id);
        } catch (IllegalArgumentException e) {
            throw new PoisonMessage("header message-id is not a UUID: " + id);
        }
        if (record.value() == null) {
            throw new PoisonMessage("empty body");
        }
        JsonNode body;
        try {
            body = Json.mapper().readTree(record.value());
        } catch (java.io.IOException e) {
            throw new PoisonMessage("body is not JSON: " + e.getMessage());
        }
        if (body == null || !body.isObject()) {
            throw new PoisonMessage("body is not a JSON object");
        }
        return new IncomingMessage(messageId, type, record.key(), header(record, Topics.CORRELATION_ID), body);
    }

    /** The record's {@code traceparent} header (the relay copies it from the outbox row), or null. */
    public static String traceparent(ConsumerRecord<String, byte[]> record) {
        return header(record, org.sagas.orchestrator.tracing.Traceparent.HEADER);
    }

    /** A consumer span for {@code record}, continuing the trace its {@code traceparent} header names. */
    public static Span consumerSpan(Tracing tracing, ConsumerRecord<String, byte[]> record) {
        Span span = tracing.start(record.topic() + " process", SpanKind.CONSUMER,
                tracing.continuing(traceparent(record)));
        span.setAttribute("messaging.system", "kafka");
        span.setAttribute("messaging.destination.name", record.topic());
        span.setAttribute("messaging.kafka.message.key", String.valueOf(record.key()));
        return span;
    }

    static String header(ConsumerRecord<String, byte[]> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }
}
