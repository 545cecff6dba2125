/**
 * The generic saga engine: a definition is an ordered list of synchronous and asynchronous
 * steps with compensations; the engine knows nothing of orders.
 *
 * <p>{@link org.sagas.orchestrator.saga.SagaDecisions} decides (pure: instance + what happened
 * → {@link org.sagas.orchestrator.saga.Transition}); {@link org.sagas.orchestrator.saga.SagaEngine}
 * writes each transition (row with a version check, history, outbox rows) in one transaction and
 * runs steps under a lease. The engine's half of degraded mode lives here: a step whose
 * dependency is unavailable <em>parks</em> the saga (parked on, next attempt, expiry), {@link
 * org.sagas.orchestrator.saga.ParkedResumer} resumes parked sagas oldest first at a paced rate
 * when the dependency's breaker closes, and the engine expires those parked past their time to
 * live. A second saga is a new {@link org.sagas.orchestrator.saga.SagaDefinition}, registered
 * with the engine; nothing here changes.
 */
package org.sagas.orchestrator.saga;
