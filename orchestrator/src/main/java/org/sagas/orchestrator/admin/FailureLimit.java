package org.sagas.orchestrator.admin;

/**
 * How many failed authentications one remote address may have on the operator listener before it
 * is answered {@code 429} (docs/security.md, "The operator listener"). Immutable.
 *
 * @param burst failures at once (a token bucket of this size)
 * @param perMinute failures allowed again per minute, once the burst is spent
 * @throws IllegalArgumentException when either is below 1
 */
public record FailureLimit(int burst, int perMinute) {
    public FailureLimit {
        if (burst < 1 || perMinute < 1) {
            throw new IllegalArgumentException("need at least one failure at once and one per minute, were "
                    + burst + " and " + perMinute);
        }
    }

    /** 5 at once, then one every 10 s. */
    public static FailureLimit defaults() {
        return new FailureLimit(5, 6);
    }
}
