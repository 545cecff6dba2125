/**
 * The resilience stack around a remote dependency, outermost first: bulkhead, circuit breaker,
 * retry (with a budget), timeout, call.
 *
 * <p>{@link org.sagas.orchestrator.resilience.ResilientDependency} composes the stack, one
 * instance per dependency. Failsafe provides the circuit breaker state machine and the per-attempt
 * timeout; what it lacks or gets wrong in 3.3.2 lives here, small: the propagated
 * {@link org.sagas.orchestrator.resilience.Deadline}, the
 * {@link org.sagas.orchestrator.resilience.RetryBudget}, {@link
 * org.sagas.orchestrator.resilience.FullJitter} backoff, a leak-free {@link
 * org.sagas.orchestrator.resilience.SemaphoreBulkhead}, a cap on concurrent half-open trials,
 * load shedding by {@link org.sagas.orchestrator.resilience.Priority} and a slow-start {@link
 * org.sagas.orchestrator.resilience.TokenBucketPacer} for resuming parked work.
 *
 * <p>The distinction that matters: a dependency that <em>failed</em> throws {@link
 * org.sagas.orchestrator.resilience.TransientFailure} and is retried and counted by the breaker;
 * a dependency that <em>said no</em> answers with a value (out of stock, declined) or, when it
 * refuses the request for good, throws {@link org.sagas.orchestrator.resilience.ParticipantRefused};
 * both pass through unchanged. When the stack gives up it throws {@link
 * org.sagas.orchestrator.resilience.DependencyUnavailable}, and the caller's degraded mode
 * decides; its {@code mayHaveTakenEffect()} tells an unknown outcome (an attempt may have acted)
 * from one where nothing happened. Every decision is made on these types, never on message text.
 *
 * <p>Configuration is one immutable config per policy ({@link
 * org.sagas.orchestrator.resilience.TimeoutConfig}, {@link
 * org.sagas.orchestrator.resilience.RetryConfig}, {@link
 * org.sagas.orchestrator.resilience.BreakerConfig}, {@link
 * org.sagas.orchestrator.resilience.BulkheadConfig}), each from a validating builder, composed per
 * dependency by {@link org.sagas.orchestrator.resilience.ResilienceConfig}; {@link
 * org.sagas.orchestrator.resilience.ResilienceSettings} declares the environment variables that
 * set them. The package reports what happens through a {@link
 * org.sagas.orchestrator.resilience.ResilienceListener} and knows no metrics library: the
 * application binds the events to its meters.
 */
package org.sagas.orchestrator.resilience;
