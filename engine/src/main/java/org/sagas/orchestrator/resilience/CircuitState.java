package org.sagas.orchestrator.resilience;

/** The state of a dependency's circuit breaker, as published to listeners and metrics. */
public enum CircuitState {
    /** Calls flow; failures are being counted. */
    CLOSED(0),
    /** A few trial calls decide whether to close again or reopen. */
    HALF_OPEN(1),
    /** Calls are rejected without being sent until the open duration has passed. */
    OPEN(2);

    private final int gaugeValue;

    CircuitState(int gaugeValue) {
        this.gaugeValue = gaugeValue;
    }

    /** Returns the value of the {@code saga_circuit_state} gauge: 0 closed, 1 half-open, 2 open. */
    public int gaugeValue() {
        return gaugeValue;
    }
}
