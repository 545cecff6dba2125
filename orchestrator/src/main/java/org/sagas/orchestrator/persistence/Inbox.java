package org.sagas.orchestrator.persistence;

import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Consumed message ids per consumer. Recording an id in the transaction of its effect makes a
 * redelivery a no-op. Stateless and thread-safe.
 */
public final class Inbox {
    private Inbox() {}

    /** Records {@code messageId} for {@code consumer}; false when it was already there (a redelivery). */
    public static boolean firstDelivery(Handle handle, String consumer, UUID messageId) {
        return handle.createUpdate("INSERT INTO inbox (consumer, message_id) VALUES (:consumer, :id)"
                        + " ON CONFLICT DO NOTHING")
                .bind("consumer", consumer).bind("id", messageId).execute() == 1;
    }
}
