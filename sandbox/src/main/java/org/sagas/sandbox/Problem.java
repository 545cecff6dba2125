package org.sagas.sandbox;

import org.sagas.orchestrator.ProblemDetail;
import java.util.Map;

/**
 * An answer other than success, written as {@code application/problem+json} (RFC 9457):
 * {@code {"type","title","status","detail"}}, plus {@code "field"} naming the input at fault on a
 * 400. Thrown by handlers and by the stages of an asynchronous answer; immutable.
 */
final class Problem extends RuntimeException {
    private final int status;
    private final String slug;
    private final String title;
    private final String field;

    private Problem(int status, String slug, String title, String detail, String field) {
        // A problem is an answer, not a bug: no stack trace to fill.
        super(detail, null, false, false);
        this.status = status;
        this.slug = slug;
        this.title = title;
        this.field = field;
    }

    /** 400: {@code field} (a body path such as {@code lines[0].quantity}, or a header) is invalid. */
    static Problem invalid(String field, String detail) {
        return new Problem(400, "invalid-request", "Invalid request", field + ": " + detail, field);
    }

    /** 401: the request lacks the credential the route asks for (the caller adds WWW-Authenticate). */
    static Problem unauthorized(String detail) {
        return new Problem(401, "unauthorized", "Unauthorized", detail, null);
    }

    static Problem notFound(String detail) {
        return new Problem(404, "not-found", "Not found", detail, null);
    }

    static Problem unavailable(String detail) {
        return new Problem(503, "unavailable", "Service unavailable", detail, null);
    }

    static Problem deadlineExceeded(String detail) {
        return new Problem(504, "deadline-exceeded", "Deadline exceeded", detail, null);
    }

    static Problem answerLost(String detail) {
        return new Problem(504, "answer-lost", "Answer lost", detail, null);
    }

    static Problem internal(String detail) {
        return new Problem(500, "internal-error", "Internal error", detail, null);
    }

    /** Any other status, e.g. one Javalin chose (404 for an unknown path, 405). */
    static Problem of(int status, String title, String detail) {
        return new Problem(status, "http-" + status, title, detail, null);
    }

    int status() {
        return status;
    }

    Map<String, Object> body() {
        return new ProblemDetail(status, slug, title, getMessage(),
                field == null ? Map.of() : Map.of("field", field)).members();
    }
}
