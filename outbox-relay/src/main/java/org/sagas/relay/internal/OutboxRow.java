package org.sagas.relay.internal;

import java.time.Instant;
import java.util.UUID;

/** One committed, unpublished outbox row, as the relay reads it. */
public record OutboxRow(
        long id,
        String aggregateId,
        String topic,
        UUID messageId,
        String messageType,
        String correlationId,
        String payload,
        Instant createdAt) {}
