package org.sagas.orchestrator.messaging;

/**
 * A message the saga wants published, written to the outbox in the transition's transaction.
 *
 * @param payload any value Jackson can serialise
 */
public record OutgoingMessage(String topic, String key, String type, Object payload) {}
