package org.sagas.orchestrator.resilience;

import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.sagas.orchestrator.resilience.AttemptOutcome.Answered;
import org.sagas.orchestrator.resilience.AttemptOutcome.Failed;
import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The resilience stack around one remote dependency, outermost first: bulkhead, circuit breaker,
 * retry with a budget, timeout, call. Create exactly one per dependency, so all its callers share
 * one breaker, one bulkhead and one retry budget.
 *
 * <p>The breaker sits outside the retries: a call and all its retries count once, as a failure
 * only if every attempt failed transiently and at least one failure was the dependency's own: a
 * timeout of an attempt that the deadline had cut short of a fair chance (less than its own
 * timeout and less than a few times the dependency's usual answer time) is the product's
 * slowness, and gives no verdict. A non-transient exception (a {@link
 * ParticipantRefused} above all) means the dependency answered, so it counts as a success and is
 * passed through.
 *
 * <p>A layer whose config is absent from the {@link ResilienceConfig} is left out; the timeout is
 * always there. Retries, spent budgets, calls not sent and breaker transitions are reported to a
 * {@link ResilienceListener}, which the application binds to its metrics.
 *
 * <p>Thread-safe.
 */
public final class ResilientDependency {
    private static final Logger log = LoggerFactory.getLogger(ResilientDependency.class);

    private final ResilienceConfig config;
    private final SemaphoreBulkhead bulkhead;
    private final Breaker breaker;
    private final AttemptLoop attempts;
    private final ResilienceListener listener;
    /** The bulkhead place {@link #holdPlace} keeps for this thread's next call, and when it was taken. */
    private final ThreadLocal<HeldPlace> held = new ThreadLocal<>();
    /** From {@link #holdPlace} to its call's entry, the usual time. */
    private final MovingAverage beforeCall = new MovingAverage(0.1);
    /** When an attempt last failed by the dependency's own fault ({@link System#nanoTime()}). */
    private volatile long lastFaultNanos = System.nanoTime() - FAULT_MEMORY_NANOS;
    /** When its bulkhead was last found full of its overdue calls, the product not congested. */
    private volatile long lastOverdueNanos = System.nanoTime() - FAULT_MEMORY_NANOS;
    /** The calls on the wire now: their thread, and when each was sent ({@link System#nanoTime()}). */
    private final ConcurrentHashMap<Thread, Long> onWire = new ConcurrentHashMap<>();
    /** When a call last came off the wire, answered or not ({@link System#nanoTime()}). */
    private volatile long lastOffWireNanos = System.nanoTime();
    private final AnswerTime answers;

    /** @param patient sent whatever time is left (a high-priority submission's call) */
    private record HeldPlace(Permit permit, long takenNanos, boolean patient) {}

    /** How recently a failure of the dependency's own makes a full bulkhead its doing, not ours. */
    private static final long FAULT_MEMORY_NANOS = Duration.ofSeconds(10).toNanos();

    private ResilientDependency(ResilienceConfig config, ResilienceListener listener, CpuPressure pressure) {
        this.config = config;
        this.listener = listener;
        this.bulkhead = config.bulkhead().map(b -> new SemaphoreBulkhead(b.permits())).orElse(null);
        this.breaker = config.breaker().<Breaker>map(b -> new FailsafeBreaker(config.dependency(), b))
                .orElse(Breaker.alwaysClosed());
        this.attempts = new AttemptLoop(config, listener, pressure);
        this.answers = attempts.answerTime();
        breaker.onStateChange(state -> listener.onStateChange(config.dependency(), state));
    }

    /**
     * Creates the stack for {@code config.dependency()} and tells {@code listener} it exists
     * ({@link ResilienceListener#onCreated}) before returning it.
     *
     * @throws IllegalStateException if the listener refuses the stack (a metrics binding that
     *     already has one of the same name)
     */
    public static ResilientDependency create(ResilienceConfig config, ResilienceListener listener) {
        return create(config, listener, CpuPressure.system());
    }

    /** As {@link #create(ResilienceConfig, ResilienceListener)}, judging its timeouts by {@code pressure}. */
    static ResilientDependency create(ResilienceConfig config, ResilienceListener listener, CpuPressure pressure) {
        ResilientDependency dependency = new ResilientDependency(Objects.requireNonNull(config, "config"),
                new GuardedListener(Objects.requireNonNull(listener, "listener")), pressure);
        dependency.listener.onCreated(dependency);
        return dependency;
    }

    /**
     * Calls the dependency through the stack.
     *
     * <p>Each attempt receives, and is held to, {@code min(attemptTimeout, deadline.remaining())};
     * an attempt that overruns is interrupted and counts as a transient failure. Retries follow
     * only a {@link TransientFailure}, with full-jitter backoff, while attempts remain, the retry
     * budget allows and the deadline leaves at least {@code minimumUsefulBudget} for the next one.
     * A call not sent is reported to the listener with its reason before the exception is thrown.
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
        long start = System.nanoTime();
        try {
            return callWithin(deadline, attempt);
        } finally {
            RemoteTime.add(System.nanoTime() - start);
        }
    }

    private <T> T callWithin(Deadline deadline, AttemptFunction<T> attempt) {
        if (deadline.remaining().compareTo(config.timeout().minimumUsefulBudget()) < 0) {
            throw rejected(Reason.DEADLINE_TOO_SHORT);
        }
        HeldPlace place = held.get();
        boolean patient = place != null && place.patient();
        Permit permit = enterBulkhead(deadline);
        RemoteTime.Watcher watcher = RemoteTime.onWire();
        Thread caller = Thread.currentThread();
        onWire.put(caller, System.nanoTime());
        try (Breaker.Admission admission = breaker.tryAdmit().orElseThrow(() -> rejected(Reason.BREAKER_OPEN))) {
            return callAdmitted(admission, deadline, attempt, patient);
        } finally {
            onWire.remove(caller);
            lastOffWireNanos = System.nanoTime();
            RemoteTime.offWire(watcher);
            permit.close();
        }
    }

    /**
     * Before work that will call this dependency on this thread by {@code callDeadline} (a
     * submission about to be stored), makes sure the call will get a fair chance, so that the
     * product's own lack of capacity is answered as such instead of being found in the call. While
     * the dependency is not known to fail (the breaker closed, no failure of its own for ten
     * seconds), it takes a bulkhead place for the thread's next call, waiting as a call would, and,
     * when {@code congested} (the product queues on its own resources, so its time before the call is
     * what eats the deadline), checks that the deadline leaves, after the usual time between this and
     * the call, an attempt of its own timeout or three times the dependency's usual answer time.
     * Uncongested, the call is given whatever time is left, as any call. When the dependency
     * is known to fail, it holds nothing and judges nothing: the call tells, and degraded mode
     * answers.
     *
     * @return the place, to close once the work is done (closing it twice is harmless; the call
     *     gives it back as soon as it ends), or empty when the product cannot give the call a fair
     *     chance now: {@code BULKHEAD_FULL} or {@code DEADLINE_TOO_SHORT} in {@code refusal}
     */
    public Optional<Permit> holdPlace(Deadline callDeadline, boolean congested, Consumer<Reason> refusal) {
        return holdPlace(callDeadline, congested, Priority.NORMAL, refusal);
    }

    /**
     * As {@link #holdPlace(Deadline, boolean, Consumer)} for a submission of {@code priority}. A
     * {@link Priority#HIGH high} one is not judged ahead on its deadline, waits for a bulkhead place
     * as long as its deadline leaves, and its call is then sent with whatever time is left, even less
     * than the dependency usually takes (a cut-short reservation is asked again, ADR 0021): lower
     * priorities are refused first, so that high ones keep their success.
     */
    public Optional<Permit> holdPlace(Deadline callDeadline, boolean congested, Priority priority,
            Consumer<Reason> refusal) {
        if (failingLately()) {
            return Optional.of(new Permit(() -> { }));
        }
        boolean patient = priority == Priority.HIGH;
        boolean judged = congested && !patient;
        Duration fair = judged ? answers.fairAttempt(config.timeout().attemptTimeout()) : Duration.ZERO;
        if (fair.compareTo(config.timeout().minimumUsefulBudget()) < 0) {
            fair = config.timeout().minimumUsefulBudget();
        }
        Duration room = callDeadline.remaining().minus(fair).minusNanos(judged ? (long) beforeCall.nanos().orElse(0) : 0);
        if (room.isNegative()) {
            refusal.accept(Reason.DEADLINE_TOO_SHORT);
            return Optional.empty();
        }
        if (bulkhead == null) {
            return Optional.of(new Permit(() -> { }));
        }
        Duration maxWait = config.bulkhead().orElseThrow().maxWait();
        Optional<Permit> permit = bulkhead.tryAcquire(patient || room.compareTo(maxWait) < 0 ? room : maxWait);
        if (permit.isEmpty() && !congested && fullOfOverdueCalls()) {
            // Not our queueing: the dependency holds its places with calls longer than it takes.
            return Optional.of(new Permit(() -> { }));
        }
        if (permit.isEmpty()) {
            refusal.accept(Reason.BULKHEAD_FULL);
            return Optional.empty();
        }
        HeldPlace place = new HeldPlace(permit.get(), System.nanoTime(), patient);
        held.set(place);
        return Optional.of(new Permit(() -> {
            if (held.get() == place) {
                held.remove();
            }
            place.permit().close();
        }));
    }

    /**
     * Whether the dependency is known to fail: its breaker not closed, or in the last ten seconds an
     * attempt of its own failed or its bulkhead was found full of its overdue calls. Otherwise a call not sent ({@code BULKHEAD_FULL}, {@code
     * DEADLINE_TOO_SHORT}) was the caller's want of capacity, not the dependency's doing.
     */
    public boolean failingLately() {
        long now = System.nanoTime();
        return breaker.state() != CircuitState.CLOSED || now - lastFaultNanos < FAULT_MEMORY_NANOS
                || now - lastOverdueNanos < FAULT_MEMORY_NANOS;
    }

    /**
     * Whether the bulkhead, found full, is held by the dependency: most of its places by calls on
     * the wire, the oldest of them overdue (sent longer ago than {@link AnswerTime#overdueAfter}),
     * and none come off the wire for as long: the dependency has gone silent. A product short of CPU
     * stretches every call past its usual time too, but its calls still end one after another as
     * its threads get the cores; a dependency that has stopped answering ends none (ADR 0036).
     * Asked only while the product is not congested, where a call's time is the dependency's (a
     * product short of CPU stretches every call, and its full bulkhead is its own doing). Then the
     * dependency counts as failing lately, as after a failure of its own: its first calls have not
     * timed out yet, but the orders behind them are degraded mode's to answer, not refused.
     */
    private boolean fullOfOverdueCalls() {
        long now = System.nanoTime();
        long oldest = now;
        int sent = 0;
        for (long since : onWire.values()) {
            oldest = Math.min(oldest, since);
            sent++;
        }
        Duration overdue = answers.overdueAfter(config.timeout().attemptTimeout());
        if (2 * sent < bulkhead.inUse() || now - oldest <= overdue.toNanos()
                || now - lastOffWireNanos <= overdue.toNanos()) {
            return false;
        }
        long before = lastOverdueNanos;
        lastOverdueNanos = now;
        if (now - before >= FAULT_MEMORY_NANOS) {
            log.warn("{}: its bulkhead is full of calls longer than it takes ({} of {} places on the wire, the oldest"
                    + " sent {} ms ago, none answered for {} ms, overdue after {} ms): counted as failing, degraded"
                    + " mode answers", config.dependency(), sent, bulkhead.permits(), (now - oldest) / 1_000_000,
                    (now - lastOffWireNanos) / 1_000_000, overdue.toMillis());
        }
        return true;
    }

    /**
     * The shortest attempt whose timeout counts against the dependency: its own attempt timeout or
     * three usual answers, whichever is less; zero before its first answer.
     */
    Duration fairAttempt() {
        return answers.fairAttempt(config.timeout().attemptTimeout());
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
        HeldPlace place = held.get();
        if (place != null) {
            // Taken for this call by holdPlace before the caller's own work: used once.
            held.remove();
            if (!place.permit().isReleased()) {
                beforeCall.record(System.nanoTime() - place.takenNanos());
                return place.permit();
            }
        }
        if (bulkhead == null) {
            return new Permit(() -> { });
        }
        // Waiting longer than the deadline leaves room for would only produce a useless call.
        Duration maxWait = config.bulkhead().orElseThrow().maxWait();
        Duration room = deadline.remaining().minus(config.timeout().minimumUsefulBudget());
        Duration wait = room.compareTo(maxWait) < 0 ? room : maxWait;
        return bulkhead.tryAcquire(wait.isNegative() ? Duration.ZERO : wait)
                .orElseThrow(() -> rejected(Reason.BULKHEAD_FULL));
    }

    /** A call not sent: reported, then thrown by the caller. */
    private DependencyUnavailable rejected(Reason reason) {
        listener.onRejected(config.dependency(), reason);
        return unavailable(reason, null);
    }

    private <T> T callAdmitted(Breaker.Admission admission, Deadline deadline, AttemptFunction<T> attempt,
            boolean patient) {
        AttemptOutcome<T> outcome;
        try {
            outcome = attempts.run(deadline, attempt, patient);
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
            if (failed.dependencyAtFault()) {
                lastFaultNanos = System.nanoTime();
                admission.failed();
            } else {
                // Our slowness is not theirs: no verdict on the dependency (docs/decisions/0021).
                listener.onCutShort(config.dependency());
            }
            throw new DependencyUnavailable(config.dependency(), failed.reason(), failed.lastFailure(),
                    failed.mayHaveTakenEffect(), !failed.dependencyAtFault());
        }
        // The bulkhead wait used up the time: nothing was sent, so nothing for the breaker to record.
        throw rejected(Reason.DEADLINE_TOO_SHORT);
    }

    private DependencyUnavailable unavailable(Reason reason, Throwable cause) {
        return new DependencyUnavailable(config.dependency(), reason, cause);
    }
}
