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
 * with the engine; nothing here changes. A changed saga is a new version of its definition,
 * registered beside the old one ({@link org.sagas.orchestrator.saga.SagaRegistry}): each instance
 * runs the version it started on, a process claims only the versions it has, and {@link
 * org.sagas.orchestrator.saga.SagaFleet} refuses a start that would strand live instances
 * (docs/decisions/0025-versioned-saga-definitions.md).
 */
package org.sagas.orchestrator.saga;
