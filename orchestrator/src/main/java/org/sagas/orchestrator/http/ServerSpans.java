package org.sagas.orchestrator.http;

import io.javalin.http.Context;
import io.javalin.http.Handler;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.TextMapGetter;
import org.sagas.orchestrator.tracing.Tracing;

/**
 * Server spans for the routes that start a saga's story ({@code POST /orders}): continues the
 * caller's {@code traceparent} when it sent one. While tracing is off the route is registered as
 * it is, untouched. Stateless and thread-safe.
 */
final class ServerSpans {
    private static final TextMapGetter<Context> HEADERS = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Context ctx) {
            return ctx.headerMap().keySet();
        }

        @Override
        public String get(Context ctx, String key) {
            return ctx == null ? null : ctx.header(key);
        }
    };

    private ServerSpans() {}

    /** {@code handler} inside a server span named after {@code method} and {@code route}. */
    static Handler traced(Tracing tracing, String method, String route, Handler handler) {
        if (!tracing.on()) {
            return handler;
        }
        return ctx -> {
            Span span = tracing.start(method + " " + route, SpanKind.SERVER, tracing.extract(ctx, HEADERS));
            span.setAttribute("http.request.method", method);
            span.setAttribute("http.route", route);
            try (Scope scope = span.makeCurrent()) {
                handler.handle(ctx);
                span.setAttribute("http.response.status_code", ctx.statusCode());
            } catch (Exception e) {
                // Refusals (400, 401, 503 ...) are answered by the exception mappers after this.
                span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
                throw e;
            } finally {
                span.end();
            }
        };
    }
}
