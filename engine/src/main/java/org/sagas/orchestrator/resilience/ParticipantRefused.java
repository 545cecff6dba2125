package org.sagas.orchestrator.resilience;

import java.util.Objects;

/**
 * A participant refused a request for good: no retry of the same request can change its answer
 * (an HTTP 4xx other than 408, 409, 425 and 429, a body it rejects). Nothing took effect.
 *
 * <p>Not a failure: the resilience stack passes it through unchanged, neither retried nor counted
 * against the breaker (the participant answered). The caller decides on the type: a refused
 * forward step ends its saga's business path (a refused reservation rejects the order), a refused
 * compensation is an incident for an operator. The message is the participant's own text, for
 * logs and operators only. Immutable.
 */
public class ParticipantRefused extends RuntimeException {
    private final String participant;

    /** @param participant the refusing dependency's name, as in {@link ResilienceConfig#dependency()} */
    public ParticipantRefused(String participant, String message) {
        super(message);
        this.participant = Objects.requireNonNull(participant, "participant");
    }

    /** The dependency that refused. */
    public String participant() {
        return participant;
    }
}
