package org.sagas.orchestrator.resilience;

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
 * <p>Without a {@link RetryConfig} every call makes one attempt. Thread-safe: per-call state lives
 * on the stack; the budget and the listener are thread-safe.
 */
final class AttemptLoop {
    private static final long NOTICE_SLACK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final String dependency;
    private final TimeoutConfig timeout;
    private final int maxAttempts;
    private final TimedAttempt timedAttempt;
    /** Null without retries, like {@link #backoff}. */
    private final RetryBudget budget;
    private final FullJitter backoff;
    private final ResilienceListener listener;
    private final AnswerTime answerTime = new AnswerTime();
    private final CpuPressure pressure;
    /** The share of an attempt's time spent with tasks waiting for a core that makes it the product's. */
    static final double HELD_UP_SHARE = 0.5;

    /** The dependency's usual answer time, as its answered attempts tell it. */
    AnswerTime answerTime() {
        return answerTime;
    }

    AttemptLoop(ResilienceConfig config, ResilienceListener listener, CpuPressure pressure) {
        this.pressure = pressure;
        this.dependency = config.dependency();
        this.timeout = config.timeout();
        this.maxAttempts = config.retry().map(RetryConfig::maxAttempts).orElse(1);
        this.timedAttempt = new TimedAttempt(config.dependency());
        this.budget = config.retry().map(r -> new RetryBudget(r.budgetRatio(), r.budgetInitial())).orElse(null);
        this.backoff = config.retry().map(r -> new FullJitter(r.backoffBase(), r.backoffCap())).orElse(null);
        this.listener = listener;
    }

    /**
     * Makes the attempts of one call; a {@code patient} call is sent with any time above the minimum
     * useful budget, even less than the dependency usually takes (a high-priority submission's).
     *
     * @throws Exception a non-transient exception from an attempt, unchanged
     */
    <T> AttemptOutcome<T> run(Deadline deadline, AttemptFunction<T> function, boolean patient) throws Exception {
        TransientFailure lastFailure = null;
        // An earlier attempt that may have acted leaves the whole call's outcome unknown.
        boolean mayHaveTakenEffect = false;
        boolean atFault = false;
        for (int attempt = 1; ; attempt++) {
            Duration attemptTimeout = deadline.cap(timeout.attemptTimeout());
            // An attempt with less time than the dependency usually takes would time out with its
            // outcome unknown, for time the product spent: it is not sent (docs/decisions/0021).
            if (attemptTimeout.compareTo(timeout.minimumUsefulBudget()) < 0
                    || !patient && answerTime.usuallyLongerThan(attemptTimeout, timeout.attemptTimeout())) {
                return lastFailure == null ? new NotAttempted<>() : failed(lastFailure, mayHaveTakenEffect, atFault);
            }
            if (attempt == 1 && budget != null) {
                budget.recordCall();
            }
            CpuPressure.Mark pressureAtStart = pressure.mark();
            long started = System.nanoTime();
            try {
                T answer = timedAttempt.run(attemptTimeout, function);
                answerTime.record(System.nanoTime() - started);
                return new Answered<>(answer);
            } catch (TransientFailure failure) {
                lastFailure = failure;
                mayHaveTakenEffect |= failure.mayHaveTakenEffect();
                atFault |= !(failure instanceof TimedOutFailure) || answerTime.wasFair(onACore(attemptTimeout,
                        System.nanoTime() - started), timeout.attemptTimeout())
                        && !heldUpByTheProduct(started, pressureAtStart);
            }
            Optional<Duration> pause = backoffBeforeRetry(attempt, deadline);
            if (pause.isEmpty() || !sleep(pause.get())) {
                return failed(lastFailure, mayHaveTakenEffect, atFault);
            }
            listener.onRetry(dependency, attempt + 1);
        }
    }

    /**
     * The time an attempt allowed {@code allowed} really had: less by how late its timeout was
     * noticed. A thread that learns of a timeout long after it fell due was waiting for a core, and
     * so was whatever would have read the answer (the product starved of CPU, docs/decisions/0021).
     * Lateness within {@code NOTICE_SLACK} (a core's usual wake-up, the lag admission tolerates) is
     * not counted, so an attempt given its whole timeout on an idle product stays a fair one.
     */
    static Duration onACore(Duration allowed, long tookNanos) {
        long late = Math.max(0, tookNanos - allowed.toNanos() - NOTICE_SLACK_NANOS);
        return late >= allowed.toNanos() ? Duration.ZERO : allowed.minusNanos(late);
    }

    /**
     * Whether a whole attempt that timed out was the product's doing, not the dependency's: tasks
     * waited for a core for at least {@link #HELD_UP_SHARE} of its time (the thread that would read
     * its answer among them, most likely), while the dependency went on answering other calls. A
     * machine short of CPU stretches every call; a dependency that answers nothing is slow whatever
     * the cores do, and its timeouts count (docs/decisions/0036).
     */
    private boolean heldUpByTheProduct(long startedNanos, CpuPressure.Mark atStart) {
        return answerTime.answeredSince(startedNanos) && pressure.heldUp(atStart, HELD_UP_SHARE);
    }

    /** Returns the pause before the next attempt, or empty if there must be no next attempt. */
    private Optional<Duration> backoffBeforeRetry(int attemptsMade, Deadline deadline) {
        if (attemptsMade >= maxAttempts) {
            return Optional.empty();
        }
        Duration room = deadline.remaining().minus(timeout.minimumUsefulBudget());
        if (room.isNegative()) {
            return Optional.empty();
        }
        // Spend the token last, only once the retry is otherwise certain.
        if (!budget.tryAcquireRetry()) {
            listener.onRetryBudgetExhausted(dependency);
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

    private static <T> AttemptOutcome<T> failed(TransientFailure lastFailure, boolean mayHaveTakenEffect,
            boolean atFault) {
        Reason reason = lastFailure instanceof TimedOutFailure ? Reason.TIMEOUT : Reason.RETRIES_EXHAUSTED;
        return new Failed<>(reason, lastFailure, mayHaveTakenEffect, atFault);
    }
}
