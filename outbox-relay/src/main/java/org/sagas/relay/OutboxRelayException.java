package org.sagas.relay;

/**
 * The outbox relay module's unchecked exception: the database could not be reached or refused a
 * statement. Retrying later may succeed; nothing was changed when it is thrown.
 */
public class OutboxRelayException extends RuntimeException {
    public OutboxRelayException(String message, Throwable cause) {
        super(message, cause);
    }
}
