package org.sagas.orchestrator.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import java.util.Collections;

/**
 * The W3C {@code traceparent} text of a span context, and back. Stored on outbox and saga rows and
 * sent as the Kafka header {@value #HEADER}, whatever propagators the SDK was configured with: a
 * row written by one process is read by another. Stateless and thread-safe.
 */
public final class Traceparent {
    /** The header (HTTP and Kafka) and column name. */
    public static final String HEADER = "traceparent";

    private static final TextMapGetter<String> ONE_VALUE = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(String carrier) {
            return Collections.singleton(HEADER);
        }

        @Override
        public String get(String carrier, String key) {
            return HEADER.equals(key) ? carrier : null;
        }
    };

    private Traceparent() {}

    /**
     * The traceparent of the span current on this thread, or null when there is none: always null
     * while tracing is off, since then no span context is ever made current.
     */
    public static String current() {
        return of(Span.current().getSpanContext());
    }

    /** The traceparent of {@code context}'s span, or null when it has no valid one. */
    public static String of(Context context) {
        return of(Span.fromContext(context).getSpanContext());
    }

    /** {@code 00-<trace id>-<span id>-<flags>}, or null for an invalid span context. */
    public static String of(SpanContext span) {
        if (!span.isValid()) {
            return null;
        }
        return "00-" + span.getTraceId() + "-" + span.getSpanId() + "-" + span.getTraceFlags().asHex();
    }

    /**
     * The remote span context {@code traceparent} names; {@link SpanContext#getInvalid()} when it
     * is null or malformed (a trace is never a reason to refuse a message).
     */
    public static SpanContext parse(String traceparent) {
        if (traceparent == null || traceparent.isEmpty()) {
            return SpanContext.getInvalid();
        }
        return Span.fromContext(W3CTraceContextPropagator.getInstance()
                .extract(Context.root(), traceparent, ONE_VALUE)).getSpanContext();
    }
}
