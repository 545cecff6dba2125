package org.sagas.adapters.http;

/**
 * A participant (inventory, payment provider) rejected a request as wrong: a 4xx other than 404
 * where it means "not found", 408 or 429. Not retriable: the same request would be rejected
 * again, so it does not count as the participant failing. Immutable.
 */
public final class ParticipantError extends RuntimeException {
    private final int status;
    private final String body;

    public ParticipantError(String message, int status, String body) {
        super(message);
        this.status = status;
        this.body = body;
    }

    /** The HTTP status the participant answered. */
    public int status() {
        return status;
    }

    /** The body it answered with (often {@code application/problem+json}). */
    public String body() {
        return body;
    }
}
