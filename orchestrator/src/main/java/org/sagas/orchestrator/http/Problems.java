package org.sagas.orchestrator.http;

import io.javalin.http.Context;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.sagas.orchestrator.Json;

/** Writes RFC 9457 problem details ({@code application/problem+json}). Stateless. */
public final class Problems {
    public static final String CONTENT_TYPE = "application/problem+json";

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
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "/problems/" + type);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        body.putAll(extra);
        return Json.write(body);
    }

    static byte[] bytes(int status, String type, String title, String detail) {
        return body(status, type, title, detail, Map.of()).getBytes(StandardCharsets.UTF_8);
    }
}
