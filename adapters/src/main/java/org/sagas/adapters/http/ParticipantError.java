package org.sagas.adapters.http;

import org.sagas.orchestrator.resilience.ParticipantRefused;

/**
 * A participant (inventory, payment provider) refused an HTTP request for good: a 4xx other than
 * 408, 409, 425 and 429 (and other than 404 where it means "not found"), or a status no retry can
 * change (a redirect the client does not follow). The same request would be refused again, so it
 * does not count as the participant failing. Immutable.
 */
public final class ParticipantError extends ParticipantRefused {
    private final int status;
    private final String body;

    public ParticipantError(String participant, String message, int status, String body) {
        super(participant, message);
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
