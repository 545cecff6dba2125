package org.sagas.orchestrator.http;

import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import org.sagas.orchestrator.Json;

/** Writes RFC 9457 problem details ({@code application/problem+json}). Stateless. */
public final class Problems {
    public static final String CONTENT_TYPE = "application/problem+json";

    private Problems() {}

    public static void send(Context ctx, int status, String type, String title, String detail,
            Map<String, Object> extra) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "/problems/" + type);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        body.putAll(extra);
        ctx.status(status).contentType(CONTENT_TYPE).result(Json.write(body));
    }

    public static void invalid(Context ctx, InvalidRequest e) {
        send(ctx, 400, "invalid-request", "Invalid request", e.getMessage(), Map.of("field", e.field()));
    }
}
