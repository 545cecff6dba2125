package org.sagas.relay;

import java.util.UUID;

/**
 * Told about every outbox row the broker acknowledged, for measurements (the relay benchmark uses
 * it to time commit to acknowledgement). Called on the relay's own thread, in acknowledgement
 * order; must be fast and must not throw.
 */
@FunctionalInterface
public interface PublishListener {
    /**
     * @param messageId the row's {@code message_id}
     * @param aggregateId the row's aggregate, the record's key
     * @param ackNanoTime {@link System#nanoTime()} when the producer saw the acknowledgement
     */
    void published(UUID messageId, String aggregateId, long ackNanoTime);
}
