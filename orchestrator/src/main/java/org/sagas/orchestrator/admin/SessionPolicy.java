package org.sagas.orchestrator.admin;

import java.time.Duration;

/**
 * How the console's sessions live (docs/operations-admin.md, "The console"). Immutable.
 *
 * @param idle a session not used for this long ends; its cookie's {@code Max-Age} is this, renewed on each use
 * @param maxAge a session ends this long after sign-in, however much it is used
 * @param maxSessions most sessions held at once; signing in beyond ends the least recently used one
 * @param secureCookie mark the cookie {@code Secure} even on plain HTTP (the console is behind a TLS proxy)
 * @throws IllegalArgumentException for a non-positive duration or count, or an idle time beyond the maximum age
 */
public record SessionPolicy(Duration idle, Duration maxAge, int maxSessions, boolean secureCookie) {
    public SessionPolicy {
        if (idle.isNegative() || idle.isZero() || maxAge.compareTo(idle) < 0 || maxSessions < 1) {
            throw new IllegalArgumentException("invalid console sessions: idle " + idle + ", at most " + maxAge
                    + ", " + maxSessions + " at once (need 0 < idle <= maximum age, at least one session)");
        }
    }

    /** 30 minutes idle, 8 hours at most, 1 000 at once, {@code Secure} only over TLS. */
    public static SessionPolicy defaults() {
        return new SessionPolicy(Duration.ofMinutes(30), Duration.ofHours(8), 1_000, false);
    }
}
