package org.sagas.orchestrator.admin;

import java.util.function.Consumer;
import java.util.function.LongSupplier;
import org.sagas.orchestrator.http.ClientQuotas;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failed authentications per remote address — wrong tokens at {@code POST /console/login}, and
 * {@code 401}s on {@code /admin} — under a {@link FailureLimit}: each failure takes a token of
 * the address's bucket ({@link ClientQuotas}, as the public API's client rates); while the bucket
 * is empty every token from that address is refused unchecked ({@code 429}), right or wrong, so
 * guessing goes no faster. Successes take nothing. The address is the connection's peer: behind
 * a proxy, every client shares the proxy's. Each refusal is reported to {@code refused} as
 * {@value #THROTTLED}; an address whose allowance runs out is logged once then. Thread-safe.
 */
final class AuthThrottle {
    static final String THROTTLED = "auth-throttled";

    /** Where a token was wrong; its refusal reason. */
    enum Attempt {
        /** {@code POST /console/login}. */
        SIGN_IN("sign-in-refused"),
        /** A request to {@code /admin}. */
        API("unauthorized");

        final String reason;

        Attempt(String reason) {
            this.reason = reason;
        }
    }
    private static final Logger log = LoggerFactory.getLogger(AuthThrottle.class);

    private final ClientQuotas failures;
    private final Consumer<String> refused;

    AuthThrottle(FailureLimit limit, Consumer<String> refused, LongSupplier nanoTime) {
        this.failures = new ClientQuotas(limit.perMinute() / 60.0, limit.burst(), nanoTime);
        this.refused = refused;
    }

    /**
     * Before checking a token from {@code address}: 0 if it may be checked, else the seconds until
     * it may (the attempt is refused, and counted).
     */
    long refusing(String address) {
        long wait = failures.waitFor(address);
        if (wait > 0) {
            refused.accept(THROTTLED);
        }
        return wait;
    }

    /**
     * A token from {@code address} was wrong: 0 if that was within its allowance (answer 401), else
     * the seconds until it may try again (answer 429: others raced it to the last failure).
     */
    long failed(String address, Attempt attempt) {
        long wait = failures.tryTake(address);
        if (wait > 0) {
            refused.accept(THROTTLED);
            return wait;
        }
        refused.accept(attempt.reason);
        long next = failures.waitFor(address);
        if (next > 0) {
            log.warn("{} from {}: not a valid token, the last one allowed: its tokens are refused for {} s",
                    attempt, address, next);
        } else {
            log.info("{} from {}: not a valid token", attempt, address);
        }
        return 0;
    }
}
