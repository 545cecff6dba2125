package org.sagas.orchestrator.resilience;

import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.sagas.orchestrator.resilience.AttemptOutcome.Answered;
import org.sagas.orchestrator.resilience.AttemptOutcome.Failed;
import org.sagas.orchestrator.resilience.AttemptOutcome.NotAttempted;
import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;

/**
 * The retry and timeout layers: attempts a call until it answers, or until no further attempt is
 * allowed by the attempt limit, the deadline or the retry budget.
 *
 * <p>Written here rather than with Failsafe's {@code RetryPolicy} because each decision depends on
 * the call's own deadline (the attempt timeout, whether there is room for another attempt, how
 * long the backoff may be) and spends a token from a budget shared by all calls; Failsafe's retry
 * predicates see neither the deadline nor whether a retry will really follow, and are also
 * evaluated after the last attempt, where spending a token would be wrong.
 *
 * <p>Thread-safe: per-call state lives on the stack; the budget and counters are thread-safe.
 */
final class AttemptLoop {

    private final ResilienceConfig config;
    private final int maxAttempts;
    private final TimedAttempt timedAttempt;
    private final RetryBudget budget;
    private final FullJitter backoff;
    private final Counter retries;
    private final Counter budgetExhausted;

    AttemptLoop(ResilienceConfig config, ResilienceMetrics metrics) {
        this.config = config;
        this.maxAttempts = config.retriesEnabled() ? config.maxAttempts() : 1;
        this.timedAttempt = new TimedAttempt(config.dependency());
        this.budget = new RetryBudget(config.retryBudgetRatio(), config.retryBudgetInitial());
        this.backoff = new FullJitter(config.backoffBase(), config.backoffCap());
        this.retries = metrics.retries();
        this.budgetExhausted = metrics.retryBudgetExhausted();
    }

    /**
     * Makes the attempts of one call.
     *
     * @throws Exception a non-transient exception from an attempt, unchanged
     */
    <T> AttemptOutcome<T> run(Deadline deadline, AttemptFunction<T> function) throws Exception {
        TransientFailure lastFailure = null;
        // An earlier attempt that may have acted leaves the whole call's outcome unknown.
        boolean mayHaveTakenEffect = false;
        for (int attempt = 1; ; attempt++) {
            Duration timeout = deadline.cap(config.attemptTimeout());
            if (timeout.compareTo(config.minimumUsefulBudget()) < 0) {
                return lastFailure == null ? new NotAttempted<>() : failed(lastFailure, mayHaveTakenEffect);
            }
            if (attempt == 1) {
                budget.recordCall();
            }
            try {
                return new Answered<>(timedAttempt.run(timeout, function));
            } catch (TransientFailure failure) {
                lastFailure = failure;
                mayHaveTakenEffect |= failure.mayHaveTakenEffect();
            }
            Optional<Duration> pause = backoffBeforeRetry(attempt, deadline);
            if (pause.isEmpty() || !sleep(pause.get())) {
                return failed(lastFailure, mayHaveTakenEffect);
            }
            retries.increment();
        }
    }

    /** Returns the pause before the next attempt, or empty if there must be no next attempt. */
    private Optional<Duration> backoffBeforeRetry(int attemptsMade, Deadline deadline) {
        if (attemptsMade >= maxAttempts) {
            return Optional.empty();
        }
        Duration room = deadline.remaining().minus(config.minimumUsefulBudget());
        if (room.isNegative()) {
            return Optional.empty();
        }
        // Spend the token last, only once the retry is otherwise certain.
        if (!budget.tryAcquireRetry()) {
            budgetExhausted.increment();
            return Optional.empty();
        }
        Duration jittered = backoff.delay(attemptsMade - 1);
        return Optional.of(jittered.compareTo(room) < 0 ? jittered : room);
    }

    /** Returns false if the thread was interrupted, keeping its interrupt status. */
    private static boolean sleep(Duration pause) {
        try {
            TimeUnit.NANOSECONDS.sleep(pause.toNanos());
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static <T> AttemptOutcome<T> failed(TransientFailure lastFailure, boolean mayHaveTakenEffect) {
        Reason reason = lastFailure instanceof AttemptTimedOut ? Reason.TIMEOUT : Reason.RETRIES_EXHAUSTED;
        return new Failed<>(reason, lastFailure, mayHaveTakenEffect);
    }
}
