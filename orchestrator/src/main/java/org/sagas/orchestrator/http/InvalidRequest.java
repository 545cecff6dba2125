package org.sagas.orchestrator.http;

/** Input that cannot be accepted; {@code field} names the culprit (JSON path or header). */
public final class InvalidRequest extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final String field;

    public InvalidRequest(String field, String message) {
        super(message);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
