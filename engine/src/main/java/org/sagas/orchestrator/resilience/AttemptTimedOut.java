package org.sagas.orchestrator.resilience;

import java.time.Duration;

/** One attempt overran the timeout the stack enforced on it: a transient failure like any other. */
final class AttemptTimedOut extends TimedOutFailure {

    AttemptTimedOut(String dependency, Duration timeout, Throwable cause) {
        super(dependency + " attempt exceeded its timeout of " + timeout.toMillis() + " ms", cause, true);
    }
}
