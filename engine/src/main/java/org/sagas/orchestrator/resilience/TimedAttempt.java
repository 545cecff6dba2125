package org.sagas.orchestrator.resilience;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.Timeout;
import dev.failsafe.TimeoutExceededException;
import java.time.Duration;
import java.util.List;

/**
 * Runs one attempt under a Failsafe {@link Timeout} that interrupts the calling thread when the
 * attempt overruns. Built per attempt because the timeout shrinks as the deadline approaches.
 * Failsafe clears the interrupt it caused before returning, so a retry's backoff is not cut short.
 *
 * <p>An attempt that ignores interruption still runs to its end; its late answer is discarded
 * as a timeout. Failsafe fires the interrupt from {@code ForkJoinPool.commonPool()} (from a pool
 * of its own on machines with one or two cores), so blocking work must stay off the common pool
 * or timeouts fire late. Thread-safe: it holds no state.
 */
final class TimedAttempt {

    private final String dependency;

    TimedAttempt(String dependency) {
        this.dependency = dependency;
    }

    /**
     * Runs {@code function} with {@code timeout} as its argument and its limit.
     *
     * @throws TransientFailure if the function threw one or overran the timeout
     * @throws Exception anything else the function threw, unchanged
     */
    <T> T run(Duration timeout, AttemptFunction<T> function) throws Exception {
        Timeout<T> limit = Timeout.<T>builder(timeout).withInterrupt().build();
        try {
            return Failsafe.with(List.of(limit)).get(() -> function.apply(timeout));
        } catch (TimeoutExceededException e) {
            throw new AttemptTimedOut(dependency, timeout, e);
        } catch (FailsafeException e) {
            throw unwrapped(e);
        }
    }

    /** Failsafe wraps the function's checked exceptions; hand them on as they were thrown. */
    private static Exception unwrapped(FailsafeException wrapper) {
        Throwable cause = wrapper.getCause();
        if (wrapper.getClass() == FailsafeException.class
                && cause instanceof Exception checked
                && !(cause instanceof RuntimeException)) {
            return checked;
        }
        return wrapper;
    }
}
