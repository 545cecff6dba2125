package org.sagas.relay;

import java.time.Instant;
import java.util.UUID;

/**
 * An outbox row the broker refused for good, as stored in {@code outbox_dead_letter}.
 *
 * @param id the row's outbox id (a replay puts it back under the same id)
 * @param payloadBytes the payload's size in bytes
 * @param payloadPreview the payload's first characters (at most {@link OutboxDeadLetters#PREVIEW_CHARS})
 * @param error the producer's error, e.g. {@code RecordTooLargeException: ...}
 * @param relayInstance the relay instance that dead-lettered it
 */
public record DeadLetter(
        long id,
        String aggregateId,
        String topic,
        UUID messageId,
        String messageType,
        String correlationId,
        int payloadBytes,
        String payloadPreview,
        Instant createdAt,
        Instant failedAt,
        String error,
        String relayInstance) {}
