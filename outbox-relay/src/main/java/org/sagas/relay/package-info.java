/**
 * The transactional outbox relay: moves committed {@code outbox} rows to Kafka, in commit order per
 * aggregate, from several relay instances at once, and removes them once the broker acknowledged.
 *
 * <p>{@link org.sagas.relay.OutboxRelay} is the relay; {@link org.sagas.relay.OutboxDeadLetters}
 * lists and resolves the rows the broker refused for good. Everything under {@code internal} is
 * implementation and never API. See {@code docs/decisions/0010} to {@code 0012} for why it works
 * the way it does.
 */
package org.sagas.relay;
