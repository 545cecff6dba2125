package org.sagas.orchestrator.tracing;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import org.slf4j.MDC;

/**
 * {@code orderId} and {@code traceId} in the SLF4J MDC for one unit of work (a request, a saga
 * step, a consumed message), put back as they were by {@link #close()} so a pooled thread never
 * logs the previous order's ids. Use with try-with-resources on the thread doing the work. The
 * saga engine puts a saga's id under {@code orderId}: for the orders saga they are the same.
 * Not thread-safe (the MDC is per thread).
 */
public final class LogContext implements AutoCloseable {
    public static final String ORDER_ID = "orderId";
    public static final String TRACE_ID = "traceId";

    private final String previousOrder;
    private final String previousTrace;

    private LogContext(String previousOrder, String previousTrace) {
        this.previousOrder = previousOrder;
        this.previousTrace = previousTrace;
    }

    /** Puts {@code orderId} and the current span's trace id (when tracing is on) into the MDC. */
    public static LogContext of(Object orderId) {
        LogContext undo = new LogContext(MDC.get(ORDER_ID), MDC.get(TRACE_ID));
        MDC.put(ORDER_ID, String.valueOf(orderId));
        SpanContext span = Span.current().getSpanContext();
        if (span.isValid()) {
            MDC.put(TRACE_ID, span.getTraceId());
        } else {
            MDC.remove(TRACE_ID);
        }
        return undo;
    }

    @Override
    public void close() {
        restore(ORDER_ID, previousOrder);
        restore(TRACE_ID, previousTrace);
    }

    private static void restore(String key, String value) {
        if (value == null) {
            MDC.remove(key);
        } else {
            MDC.put(key, value);
        }
    }
}
