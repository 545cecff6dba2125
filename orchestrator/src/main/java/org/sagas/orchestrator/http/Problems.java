package org.sagas.orchestrator.http;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.sagas.orchestrator.ProblemDetail;

/** Writes {@link ProblemDetail}s on the public and operator listeners. Stateless. */
public final class Problems {
    public static final String CONTENT_TYPE = ProblemDetail.CONTENT_TYPE;

    private Problems() {}

    public static void send(Context ctx, int status, String type, String title, String detail,
            Map<String, Object> extra) {
        ctx.status(status).contentType(CONTENT_TYPE).result(body(status, type, title, detail, extra));
    }

    public static void invalid(Context ctx, InvalidRequest e) {
        send(ctx, 400, "invalid-request", "Invalid request", e.getMessage(), Map.of("field", e.field()));
    }

    /** Answers a refusal, with its {@code Retry-After} or {@code WWW-Authenticate} header when it has one. */
    public static void refused(Context ctx, ApiRefusal e) {
        e.headers().forEach(ctx::header);
        send(ctx, e.status(), e.type(), e.title(), e.getMessage(), Map.of());
    }

    /** The JSON text of a problem, for answers written below the web framework. */
    static String body(int status, String type, String title, String detail, Map<String, Object> extra) {
        return new ProblemDetail(status, type, title, detail, extra).json();
    }

    static byte[] bytes(int status, String type, String title, String detail) {
        return body(status, type, title, detail, Map.of()).getBytes(StandardCharsets.UTF_8);
    }
}
