package org.sagas.orchestrator.resilience;

import io.micrometer.core.instrument.MeterRegistry;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Objects;
import java.util.function.Consumer;
import org.sagas.orchestrator.resilience.AttemptOutcome.Answered;
import org.sagas.orchestrator.resilience.AttemptOutcome.Failed;
import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;

/**
 * The resilience stack around one remote dependency, outermost first: bulkhead, circuit breaker,
 * retry with a budget, timeout, call. Create exactly one per dependency, so all its callers share
 * one breaker, one bulkhead and one retry budget.
 *
 * <p>The breaker sits outside the retries: a call and all its retries count once, as a failure
 * only if every attempt failed transiently. A non-transient exception (a {@link
 * ParticipantRefused} above all) means the dependency answered, so it counts as a success and is
 * passed through.
 *
 * <p>Thread-safe. Metrics: {@code saga_circuit_state}, {@code saga_circuit_rejections_total},
 * {@code saga_bulkhead_in_use}, {@code saga_retries_total} and {@code
 * saga_retry_budget_exhausted_total}, each tagged with {@code dependency}.
 */
public final class ResilientDependency {

    private final ResilienceConfig config;
    private final SemaphoreBulkhead bulkhead;
    private final Breaker breaker;
    private final AttemptLoop attempts;
    private final ResilienceMetrics metrics;

    private ResilientDependency(ResilienceConfig config, MeterRegistry registry) {
        this.config = config;
        this.metrics = new ResilienceMetrics(registry, config.dependency());
        this.bulkhead = config.bulkheadEnabled() ? new SemaphoreBulkhead(config.bulkheadPermits()) : null;
        this.breaker = config.breakerEnabled() ? new FailsafeBreaker(config) : Breaker.alwaysClosed();
        this.attempts = new AttemptLoop(config, metrics);
        metrics.registerGauges(breaker, bulkhead == null ? () -> 0 : bulkhead::inUse);
    }

    /**
     * Creates the stack for {@code config.dependency()} and registers its meters.
     *
     * @throws IllegalStateException if {@code registry} already holds a stack of the same name
     */
    public static ResilientDependency create(ResilienceConfig config, MeterRegistry registry) {
        return new ResilientDependency(Objects.requireNonNull(config, "config"),
                Objects.requireNonNull(registry, "registry"));
    }

    /**
     * Calls the dependency through the stack.
     *
     * <p>Each attempt receives, and is held to, {@code min(attemptTimeout, deadline.remaining())};
     * an attempt that overruns is interrupted and counts as a transient failure. Retries follow
     * only a {@link TransientFailure}, with full-jitter backoff, while attempts remain, the retry
     * budget allows and the deadline leaves at least {@code minimumUsefulBudget} for the next one.
     *
     * @return the dependency's answer
     * @throws DependencyUnavailable if the call was not made ({@code DEADLINE_TOO_SHORT},
     *     {@code BULKHEAD_FULL}, {@code BREAKER_OPEN}) or failed transiently on every attempt
     *     ({@code TIMEOUT} if the last attempt overran, else {@code RETRIES_EXHAUSTED}, with the
     *     last failure as cause)
     * @throws RuntimeException any other unchecked exception from an attempt, unchanged
     * @throws UndeclaredThrowableException wrapping a checked exception from an attempt
     */
    public <T> T call(Deadline deadline, AttemptFunction<T> attempt) {
        Objects.requireNonNull(deadline, "deadline");
        Objects.requireNonNull(attempt, "attempt");
        if (deadline.remaining().compareTo(config.minimumUsefulBudget()) < 0) {
            throw unavailable(Reason.DEADLINE_TOO_SHORT, null);
        }
        Permit permit = enterBulkhead(deadline);
        try (Breaker.Admission admission = breaker.tryAdmit().orElseThrow(this::rejectedByBreaker)) {
            return callAdmitted(admission, deadline, attempt);
        } finally {
            permit.close();
        }
    }

    /**
     * Returns the breaker's state. An open breaker whose open duration has passed is moved to
     * half-open first, rather than waiting for the next call to notice.
     */
    public CircuitState state() {
        return breaker.state();
    }

    /**
     * Registers a listener called on every breaker transition (degraded mode resumes parked work
     * on {@link CircuitState#CLOSED}). Listeners run on the thread that caused the transition,
     * while the breaker is locked: keep them short and hand real work to another thread. An
     * exception from a listener is logged and does not affect the call.
     */
    public void onStateChange(Consumer<CircuitState> listener) {
        breaker.onStateChange(listener);
    }

    /** Returns the dependency's name. */
    public String name() {
        return config.dependency();
    }

    /** Returns the configuration the stack was built with. */
    public ResilienceConfig config() {
        return config;
    }

    /** Returns the bulkhead permits currently taken (0 without a bulkhead). */
    public int bulkheadInUse() {
        return bulkhead == null ? 0 : bulkhead.inUse();
    }

    private Permit enterBulkhead(Deadline deadline) {
        if (bulkhead == null) {
            return new Permit(() -> { });
        }
        // Waiting longer than the deadline leaves room for would only produce a useless call.
        Duration room = deadline.remaining().minus(config.minimumUsefulBudget());
        Duration wait = room.compareTo(config.bulkheadMaxWait()) < 0 ? room : config.bulkheadMaxWait();
        return bulkhead.tryAcquire(wait.isNegative() ? Duration.ZERO : wait)
                .orElseThrow(() -> unavailable(Reason.BULKHEAD_FULL, null));
    }

    private DependencyUnavailable rejectedByBreaker() {
        metrics.circuitRejections().increment();
        return unavailable(Reason.BREAKER_OPEN, null);
    }

    private <T> T callAdmitted(Breaker.Admission admission, Deadline deadline, AttemptFunction<T> attempt) {
        AttemptOutcome<T> outcome;
        try {
            outcome = attempts.run(deadline, attempt);
        } catch (RuntimeException answer) {
            admission.succeeded();
            throw answer;
        } catch (InterruptedException e) {
            // Interrupted from outside, not by our timeout: no verdict on the dependency.
            Thread.currentThread().interrupt();
            throw new UndeclaredThrowableException(e);
        } catch (Exception answer) {
            admission.succeeded();
            throw new UndeclaredThrowableException(answer);
        }
        if (outcome instanceof Answered<T> answered) {
            admission.succeeded();
            return answered.value();
        }
        if (outcome instanceof Failed<T> failed) {
            admission.failed();
            throw new DependencyUnavailable(config.dependency(), failed.reason(), failed.lastFailure(),
                    failed.mayHaveTakenEffect());
        }
        // The bulkhead wait used up the time: nothing was sent, so nothing to record.
        throw unavailable(Reason.DEADLINE_TOO_SHORT, null);
    }

    private DependencyUnavailable unavailable(Reason reason, Throwable cause) {
        return new DependencyUnavailable(config.dependency(), reason, cause);
    }
}
