package org.sagas.orchestrator.persistence;

import java.util.Collection;
import java.util.HashSet;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;

/**
 * Consumed message ids per consumer. Recording an id in the transaction of its effect makes a
 * redelivery a no-op. Stateless and thread-safe.
 */
public final class Inbox {
    private Inbox() {}

    /**
     * Records {@code messageIds} for {@code consumer} in one statement.
     *
     * @return those that were not there yet (the others are redeliveries)
     */
    public static Set<UUID> firstDeliveries(Handle handle, String consumer, Collection<UUID> messageIds) {
        return new HashSet<>(handle.createQuery("INSERT INTO inbox (consumer, message_id)"
                        + " SELECT :consumer, id FROM unnest(CAST(:ids AS uuid[])) AS id ON CONFLICT DO NOTHING"
                        + " RETURNING message_id")
                .bind("consumer", consumer)
                .bindArray("ids", String.class, messageIds.stream().map(UUID::toString).toArray())
                .mapTo(UUID.class).list());
    }
}
