package org.sagas.orchestrator.saga;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.UUID;

/** A reply consumed from Kafka: the headers every message carries and its JSON body. */
public record IncomingMessage(UUID messageId, String type, String key, String correlationId, JsonNode payload) {}
