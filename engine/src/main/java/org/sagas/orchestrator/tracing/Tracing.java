package org.sagas.orchestrator.tracing;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Objects;

/**
 * The product's handle on OpenTelemetry, passed through the wiring (never read from {@code
 * GlobalOpenTelemetry}, so tests can give each product its own). {@link #off()} is the default:
 * callers test {@link #on()} and skip all tracing work, so an untraced product pays one field read
 * per unit of work. Immutable and thread-safe.
 */
public final class Tracing {
    /** The instrumentation scope of every span the product makes. */
    public static final String SCOPE = "org.sagas";
    private static final Tracing OFF = new Tracing(OpenTelemetry.noop(), false);

    private final OpenTelemetry telemetry;
    private final Tracer tracer;
    private final boolean on;

    private Tracing(OpenTelemetry telemetry, boolean on) {
        this.telemetry = telemetry;
        this.tracer = telemetry.getTracer(SCOPE);
        this.on = on;
    }

    /** No tracing: no spans, nothing extracted, injected or stored. */
    public static Tracing off() {
        return OFF;
    }

    /** Traces with {@code telemetry} (an SDK the application set up). */
    public static Tracing of(OpenTelemetry telemetry) {
        return new Tracing(Objects.requireNonNull(telemetry, "telemetry"), true);
    }

    public boolean on() {
        return on;
    }

    /** Starts a span of {@code kind} under {@code parent} (a root one when parent has no span). */
    public Span start(String name, SpanKind kind, Context parent) {
        return tracer.spanBuilder(name).setSpanKind(kind).setParent(parent).startSpan();
    }

    /** Starts a new trace whose root span links to {@code origin} (when valid). */
    public Span startLinked(String name, SpanContext origin) {
        var builder = tracer.spanBuilder(name).setSpanKind(SpanKind.INTERNAL).setNoParent();
        if (origin.isValid()) {
            builder.addLink(origin);
        }
        return builder.startSpan();
    }

    /** The context an incoming request's headers continue, as the configured propagators read them. */
    public <C> Context extract(C carrier, TextMapGetter<C> getter) {
        return on ? telemetry.getPropagators().getTextMapPropagator().extract(Context.root(), carrier, getter)
                : Context.root();
    }

    /** Writes {@code context} into an outgoing request's headers with the configured propagators. */
    public <C> void inject(Context context, C carrier, TextMapSetter<C> setter) {
        if (on) {
            telemetry.getPropagators().getTextMapPropagator().inject(context, carrier, setter);
        }
    }

    /** The context a stored or received {@code traceparent} continues (root when none or off). */
    public Context continuing(String traceparent) {
        if (!on) {
            return Context.root();
        }
        SpanContext remote = Traceparent.parse(traceparent);
        return remote.isValid() ? Context.root().with(Span.wrap(remote)) : Context.root();
    }
}
