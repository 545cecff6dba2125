package org.sagas.relay.internal;

import java.time.Instant;
import java.util.UUID;

/**
 * One committed, unpublished outbox row, as the relay reads it; {@code shard} is the row's lease
 * shard, which the relay's delete looks the row up by (see {@link RelaySession}); {@code traceparent}
 * is the W3C trace context its writer stored (null when it traced nothing).
 */
public record OutboxRow(
        long id,
        int shard,
        String aggregateId,
        String topic,
        UUID messageId,
        String messageType,
        String correlationId,
        String payload,
        Instant createdAt,
        String traceparent) {}
