package org.sagas.orchestrator.lifecycle;

import java.time.Instant;

/**
 * A component's state as {@code /health/components} shows it: whether its last run failed, how
 * many runs failed since start, and the kind of the last failure ({@link FailureCause}, null when
 * the last run succeeded). The failure's text is only in the log: the route answers anonymous
 * callers (docs/security.md). Immutable.
 */
public record ComponentHealth(String state, Instant lastRunAt, long failures, FailureCause lastCause) {
    public static final ComponentHealth RUNNING = new ComponentHealth("RUNNING", null, 0, null);
}
