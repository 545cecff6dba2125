package org.sagas.orchestrator.resilience;

/**
 * An attempt that ran out of time: the stack's own attempt timeout fired, the client's did, or the
 * participant answered that the deadline it was sent passed before it could start. Whether that is
 * the participant's fault depends on how much time the attempt was given (docs/decisions/0021,
 * point 3), so the stack judges it by the attempt's budget, never by the failure alone.
 */
public class TimedOutFailure extends TransientFailure {

    /**
     * @param mayHaveTakenEffect false only when the participant said it did not start (its answer
     *     to a deadline it could not meet); a timeout of ours leaves the outcome unknown
     */
    public TimedOutFailure(String message, Throwable cause, boolean mayHaveTakenEffect) {
        super(message, cause, mayHaveTakenEffect);
    }
}
