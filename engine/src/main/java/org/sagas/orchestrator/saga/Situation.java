package org.sagas.orchestrator.saga;

/**
 * What a definition looks at to name the label customers see.
 *
 * @param stepTimedOut the current asynchronous step's reply did not come in time
 * @param parkCount how many times the forward path was held up so far (parked, or a step tried
 *     again after it threw)
 */
public record Situation<D>(SagaStatus status, String step, D data, int parkCount, boolean stepTimedOut) {}
