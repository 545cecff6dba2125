package org.sagas.sandbox;

import java.util.OptionalLong;

/**
 * When to answer a request that carries injected latency and perhaps a caller's deadline, and
 * whether to do its work then. A caller whose deadline passes has given up: doing the work anyway
 * would leave effects nobody knows about (an orphan reservation), so such a request waits only
 * until the deadline and then does nothing.
 *
 * @param waitMillis how long to wait before answering
 * @param proceed whether to do the work after the wait; if not, answer 504 without effect
 */
record Admission(long waitMillis, boolean proceed) {

    static Admission decide(long nowMillis, long latencyMillis, OptionalLong deadlineMillis) {
        if (deadlineMillis.isEmpty()) {
            return new Admission(latencyMillis, true);
        }
        long remaining = deadlineMillis.getAsLong() - nowMillis;
        if (remaining <= 0) {
            return new Admission(0, false);
        }
        if (latencyMillis > remaining) {
            return new Admission(remaining, false);
        }
        return new Admission(latencyMillis, true);
    }
}
