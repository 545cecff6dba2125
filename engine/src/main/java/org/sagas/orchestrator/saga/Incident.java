package org.sagas.orchestrator.saga;

import java.time.Instant;
import java.util.Objects;

/**
 * A saga's mark that it cannot go on without an operator: the typed cause, what happened (for
 * operators) and since when. The saga keeps its status, so its order keeps a truthful one; the
 * mark goes when the saga moves to another step or an operator acts on it. Immutable.
 */
public record Incident(IncidentCause cause, String detail, Instant at) {
    public Incident {
        Objects.requireNonNull(cause, "cause");
        Objects.requireNonNull(at, "at");
    }
}
