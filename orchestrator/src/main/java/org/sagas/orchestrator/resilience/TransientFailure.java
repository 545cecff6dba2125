package org.sagas.orchestrator.resilience;

/**
 * A dependency that <em>failed</em>: a timeout, a 5xx, a refused connection. It may succeed if
 * retried, so the stack retries it and counts it against the circuit breaker.
 *
 * <p>Adapters throw this for failures only. A dependency that <em>answers no</em> (out of stock,
 * declined, a 4xx) is not a failure: return it as a value, or throw any other exception, which the
 * stack neither retries nor counts as a breaker failure.
 */
public class TransientFailure extends RuntimeException {

    /** Creates a failure with a message. */
    public TransientFailure(String message) {
        super(message);
    }

    /** Creates a failure with a message and the low-level cause (an I/O error, a status). */
    public TransientFailure(String message, Throwable cause) {
        super(message, cause);
    }
}
