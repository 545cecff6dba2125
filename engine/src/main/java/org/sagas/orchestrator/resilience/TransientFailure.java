package org.sagas.orchestrator.resilience;

/**
 * A dependency that <em>failed</em>: a timeout, a 5xx, a 408, 409, 425 or 429, a refused
 * connection. It may succeed if retried, so the stack retries it and counts it against the
 * circuit breaker.
 *
 * <p>{@link #mayHaveTakenEffect()} says whether the participant may have acted on the request
 * anyway (a timeout, a broken connection, a 500 after partial work): the outcome is then
 * <em>unknown</em>, and a caller that gives up must undo the call by its key. A refused connection,
 * a 503 or a 429 had no effect.
 *
 * <p>Adapters throw this for failures only. A dependency that <em>answers no</em> (out of stock,
 * declined) returns it as a value; one that refuses the request for good throws {@link
 * ParticipantRefused}. Neither is retried nor counted as a breaker failure.
 */
public class TransientFailure extends RuntimeException {
    private final boolean mayHaveTakenEffect;

    /** Creates a failure whose effect is unknown (the safe assumption). */
    public TransientFailure(String message) {
        this(message, null, true);
    }

    /** Creates a failure whose effect is unknown, with the low-level cause (an I/O error, a status). */
    public TransientFailure(String message, Throwable cause) {
        this(message, cause, true);
    }

    /**
     * Creates a failure.
     *
     * @param mayHaveTakenEffect false only when the participant certainly did nothing
     */
    public TransientFailure(String message, Throwable cause, boolean mayHaveTakenEffect) {
        super(message, cause);
        this.mayHaveTakenEffect = mayHaveTakenEffect;
    }

    /** A failure in which the participant certainly did nothing (refused connection, 503, 429). */
    public static TransientFailure withoutEffect(String message, Throwable cause) {
        return new TransientFailure(message, cause, false);
    }

    /** Whether the participant may have acted on the request although the call failed. */
    public boolean mayHaveTakenEffect() {
        return mayHaveTakenEffect;
    }
}
