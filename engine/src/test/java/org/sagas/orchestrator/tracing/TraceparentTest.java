package org.sagas.orchestrator.tracing;

import static org.assertj.core.api.Assertions.assertThat;

import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import org.junit.jupiter.api.Test;
import org.slf4j.MDC;

/** The traceparent text stored on rows and headers, and the MDC of one unit of work. */
class TraceparentTest {
    private static final String TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
    private static final String SPAN = "00f067aa0ba902b7";

    @Test
    void shouldWriteAndReadTheW3cForm() {
        SpanContext span = SpanContext.create(TRACE, SPAN, TraceFlags.getSampled(), TraceState.getDefault());

        String text = Traceparent.of(span);

        assertThat(text).isEqualTo("00-" + TRACE + "-" + SPAN + "-01");
        SpanContext read = Traceparent.parse(text);
        assertThat(read.getTraceId()).isEqualTo(TRACE);
        assertThat(read.getSpanId()).isEqualTo(SPAN);
        assertThat(read.isRemote()).isTrue();
    }

    @Test
    void shouldIgnoreMissingOrMalformedTraceparents() {
        assertThat(Traceparent.parse(null).isValid()).isFalse();
        assertThat(Traceparent.parse("garbage").isValid()).isFalse();
        assertThat(Traceparent.of(SpanContext.getInvalid())).isNull();
    }

    @Test
    void shouldStoreNothingAndContinueNothingWhenTracingIsOff() {
        assertThat(Traceparent.current()).isNull();
        assertThat(Tracing.off().on()).isFalse();
        assertThat(Traceparent.of(Tracing.off().continuing("00-" + TRACE + "-" + SPAN + "-01"))).isNull();
    }

    @Test
    void shouldPutTheOrderIntoTheMdcAndRestoreItAfterTheWork() {
        MDC.put(LogContext.ORDER_ID, "outer");
        try (LogContext inner = LogContext.of("inner")) {
            assertThat(MDC.get(LogContext.ORDER_ID)).isEqualTo("inner");
            assertThat(MDC.get(LogContext.TRACE_ID)).as("no trace while tracing is off").isNull();
        }
        assertThat(MDC.get(LogContext.ORDER_ID)).isEqualTo("outer");
        MDC.remove(LogContext.ORDER_ID);
        try (LogContext only = LogContext.of("alone")) {
            assertThat(MDC.get(LogContext.ORDER_ID)).isEqualTo("alone");
        }
        assertThat(MDC.get(LogContext.ORDER_ID)).isNull();
    }
}
