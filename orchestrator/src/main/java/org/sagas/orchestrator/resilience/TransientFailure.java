package org.sagas.orchestrator.resilience;

/**
 * A dependency that failed (timeout, 5xx, refused connection), as opposed to one that answered
 * "no". Retriable; counts against the circuit breaker.
 */
public class TransientFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public TransientFailure(String message) {
        super(message);
    }

    public TransientFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
