package org.sagas.orchestrator.http;

import java.util.Map;

/**
 * A request the API will not serve for who sent it or how much they sent: not authenticated
 * ({@code 401}), not theirs ({@code 403}), over their quota ({@code 429}). Answered as
 * problem+json with its headers; nothing is stored.
 */
public final class ApiRefusal extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final String type;
    private final String title;
    private final transient Map<String, String> headers;

    ApiRefusal(int status, String type, String title, String detail, Map<String, String> headers) {
        super(detail);
        this.status = status;
        this.type = type;
        this.title = title;
        this.headers = Map.copyOf(headers);
    }

    static ApiRefusal unauthenticated(String detail) {
        return new ApiRefusal(401, "unauthenticated", "Authentication required", detail,
                Map.of("WWW-Authenticate", "Bearer realm=\"sagas\""));
    }

    static ApiRefusal forbidden(String detail) {
        return new ApiRefusal(403, "forbidden", "Not allowed for this API key", detail, Map.of());
    }

    static ApiRefusal tooMany(String type, String title, String detail, long retryAfterSeconds) {
        return new ApiRefusal(429, type, title, detail, Map.of("Retry-After", Long.toString(retryAfterSeconds)));
    }

    public int status() {
        return status;
    }

    public String type() {
        return type;
    }

    public String title() {
        return title;
    }

    public Map<String, String> headers() {
        return headers;
    }
}
