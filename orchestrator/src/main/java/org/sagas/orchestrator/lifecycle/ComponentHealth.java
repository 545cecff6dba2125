package org.sagas.orchestrator.lifecycle;

import java.time.Instant;

/**
 * A component's state as {@code /health} shows it: whether its last run failed, how many runs
 * failed since start, and the last error's text (for operators; nothing decides on it).
 */
public record ComponentHealth(String state, Instant lastRunAt, long failures, String lastError) {
    public static final ComponentHealth RUNNING = new ComponentHealth("RUNNING", null, 0, null);
}
