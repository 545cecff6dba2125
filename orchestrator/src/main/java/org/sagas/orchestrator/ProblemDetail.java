package org.sagas.orchestrator;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The one problem+json shape (RFC 9457) every listener answers errors with — the public API, the
 * operator API and the sandbox participants: {@code {"type":"/problems/<slug>","title","status",
 * "detail", …extra members}}. Immutable.
 *
 * @param slug the stable last part of {@code type}, e.g. {@code invalid-request}
 * @param extra further members in order (e.g. {@code field}, {@code code}, {@code orderId})
 */
public record ProblemDetail(int status, String slug, String title, String detail, Map<String, Object> extra) {
    public static final String CONTENT_TYPE = "application/problem+json";

    public ProblemDetail {
        extra = extra == null ? Map.of() : java.util.Collections.unmodifiableMap(new LinkedHashMap<>(extra));
    }

    /** The members in their order, for a JSON writer. */
    public Map<String, Object> members() {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "/problems/" + slug);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        body.putAll(extra);
        return body;
    }

    /** The JSON text. */
    public String json() {
        return Json.write(members());
    }
}
