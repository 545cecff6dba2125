/**
 * The operator API (docs/operations-admin.md): its own HTTP listener, apart from the public API, where
 * operators with a bearer token find sagas, inspect one with what the participants hold for it,
 * retry, cancel or settle the payment of one, act on many at a paced rate (batches that survive a
 * restart), and resolve dead letters. Every write goes to the audit table.
 *
 * <p>{@link org.sagas.orchestrator.admin.AdminServer} is the entry; {@link
 * org.sagas.orchestrator.admin.AdminTokens} authenticates (constant-time), roles are {@code viewer}
 * (reads) and {@code operator} (reads and writes), and a read-only deployment refuses every write.
 * What lies outside the orchestrator — the participants' ledgers, Kafka's dead-letter topics, the
 * relay's dead-lettered outbox rows — comes in through the ports {@link
 * org.sagas.orchestrator.admin.ParticipantViews}, {@link org.sagas.orchestrator.admin.KafkaDeadLetters}
 * and {@link org.sagas.orchestrator.admin.OutboxDeadLetterPort}.
 *
 * <p>The listener has the public API's edge limits; the console signs in to server-side sessions
 * ({@code ConsoleSessions}, the cookie holds only their id), and wrong tokens are throttled per
 * remote address ({@code AuthThrottle}): docs/security.md, ADR 0023.
 */
package org.sagas.orchestrator.admin;
