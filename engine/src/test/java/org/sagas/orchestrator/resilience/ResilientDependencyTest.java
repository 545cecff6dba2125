package org.sagas.orchestrator.resilience;

import static java.util.concurrent.TimeUnit.MILLISECONDS;
import static java.util.concurrent.TimeUnit.SECONDS;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.lang.reflect.UndeclaredThrowableException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;

class ResilientDependencyTest {

    private static final Duration WAIT = Duration.ofSeconds(5);

    private static final ResilienceConfig INVENTORY = ResilienceConfig.inventoryDefaults();

    private final RecordingListener listener = new RecordingListener();
    private final AtomicInteger attempts = new AtomicInteger();

    /*
     * Inventory's policies with durations small enough to keep the suite fast; a test adjusts a
     * policy here before building the stack with fast().
     */
    private final TimeoutConfig.Builder timeout = TimeoutConfig.builder()
            .attemptTimeout(Duration.ofSeconds(1))
            .minimumUsefulBudget(Duration.ofMillis(5));
    private final RetryConfig.Builder retry = INVENTORY.retry().orElseThrow().toBuilder()
            .backoffBase(Duration.ofMillis(1))
            .backoffCap(Duration.ofMillis(2));
    private final BreakerConfig.Builder breaker = INVENTORY.breaker().orElseThrow().toBuilder()
            .openDuration(Duration.ofMillis(200));
    private final BulkheadConfig.Builder bulkhead = INVENTORY.bulkhead().orElseThrow().toBuilder();

    /** Every layer, with the policies as adjusted by the test. */
    private ResilienceConfig fast() {
        return ResilienceConfig.builder("inventory")
                .timeout(timeout.build())
                .retry(retry.build())
                .breaker(breaker.build())
                .bulkhead(bulkhead.build())
                .build();
    }

    /** Settings for breaker tests: two calls decide, one attempt each. */
    private ResilienceConfig fastBreaker() {
        breaker.minimumCalls(2);
        return fast().withoutRetries();
    }

    /** Judging timeouts as on a machine with cores to spare, whatever this one's load. */
    private ResilientDependency create(ResilienceConfig config) {
        return ResilientDependency.create(config, listener, CpuPressure.none());
    }

    private static Deadline generous() {
        return Deadline.after(WAIT);
    }

    /**
     * Twice the answer time the dependency has learnt: enough to send an attempt, short of a fair
     * one. Read from the dependency, not assumed from the sleep that taught it, since a loaded machine
     * stretches a 30 ms answer.
     */
    private static Duration twoUsualAnswers(ResilientDependency dependency) {
        return dependency.fairAttempt().multipliedBy(2).dividedBy(AnswerTime.FAIR_MULTIPLE);
    }

    /** Teaches {@code dependency} a usual answer of about 30 ms: as many answers as it takes to know it. */
    private static void answersIn30Ms(ResilientDependency dependency) {
        for (int i = 0; i < MovingAverage.KNOWN_AFTER; i++) {
            dependency.call(generous(), timeout -> {
                Thread.sleep(30);
                return "reserved";
            });
        }
    }

    private AttemptFunction<String> answering(String answer) {
        return timeout -> {
            attempts.incrementAndGet();
            return answer;
        };
    }

    private AttemptFunction<String> failingTransiently() {
        return timeout -> {
            attempts.incrementAndGet();
            throw new TransientFailure("503 from inventory");
        };
    }

    private AttemptFunction<String> blockingFor2Seconds(List<Duration> timeoutsGiven) {
        CountDownLatch never = new CountDownLatch(1);
        return timeout -> {
            attempts.incrementAndGet();
            timeoutsGiven.add(timeout);
            never.await(2, SECONDS);
            return "too late";
        };
    }

    private static DependencyUnavailable unavailable(ThrowingCallable call) {
        Throwable thrown = catchThrowable(call);
        assertThat(thrown).isInstanceOf(DependencyUnavailable.class);
        return (DependencyUnavailable) thrown;
    }

    private void trip(ResilientDependency dependency) {
        for (int i = 0; i < 2; i++) {
            unavailable(() -> dependency.call(generous(), failingTransiently()));
        }
        assertThat(dependency.state()).isEqualTo(CircuitState.OPEN);
    }

    private void awaitHalfOpen(ResilientDependency dependency) {
        await().atMost(WAIT).until(() -> dependency.state() == CircuitState.HALF_OPEN);
    }


    @Test
    void shouldReturnAnswerAndGiveAttemptTimeoutCappedByDeadline() {
        // Given a 300 ms attempt timeout
        timeout.attemptTimeout(Duration.ofMillis(300));
        ResilientDependency dependency = create(fast());
        List<Duration> given = new CopyOnWriteArrayList<>();

        // When called with plenty of time, then with 100 ms left
        String roomy = dependency.call(generous(), timeout -> {
            given.add(timeout);
            return "reserved";
        });
        String tight = dependency.call(Deadline.after(Duration.ofMillis(100)), timeout -> {
            given.add(timeout);
            return "reserved";
        });

        // Then both answer, the first with its own timeout, the second with what was left
        assertThat(roomy).isEqualTo("reserved");
        assertThat(tight).isEqualTo("reserved");
        assertThat(given.get(0)).isEqualTo(Duration.ofMillis(300));
        assertThat(given.get(1)).isLessThanOrEqualTo(Duration.ofMillis(100)).isPositive();
        assertThat(dependency.name()).isEqualTo("inventory");
        assertThat(dependency.config().timeout().attemptTimeout()).isEqualTo(Duration.ofMillis(300));
    }

    @Test
    void shouldRetryTransientFailureThenReturnAnswer() {
        // Given a dependency that fails once, then answers
        ResilientDependency dependency = create(fast());

        // When called
        String answer = dependency.call(generous(), timeout -> {
            if (attempts.incrementAndGet() == 1) {
                throw new TransientFailure("connection refused");
            }
            return "reserved";
        });

        // Then the retry got the answer and was counted
        assertThat(answer).isEqualTo("reserved");
        assertThat(attempts).hasValue(2);
        assertThat(listener.retries).hasValue(1);
        assertThat(listener.retryAttempts).containsExactly(2);
    }

    @Test
    void shouldOpenBreakerWhenHalfOfTwentyCallsFail() {
        // Given the inventory threshold (50% of at least 20 calls) and 19 calls, 10 of them failed
        ResilientDependency dependency = create(fast().withoutRetries());
        for (int i = 0; i < 19; i++) {
            if (i % 2 == 0) {
                unavailable(() -> dependency.call(generous(), failingTransiently()));
            } else {
                dependency.call(generous(), answering("reserved"));
            }
        }
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);

        // When the twentieth call answers, leaving exactly half failed
        dependency.call(generous(), answering("reserved"));

        // Then the breaker opens
        assertThat(dependency.state()).isEqualTo(CircuitState.OPEN);
        assertThat(listener.circuitGauge()).isEqualTo(2);
    }

    @Test
    void shouldStayClosedWhenFewerThanHalfOfTwentyCallsFail() {
        // Given the inventory threshold
        ResilientDependency dependency = create(fast().withoutRetries());

        // When 9 of 20 calls fail
        for (int i = 0; i < 20; i++) {
            if (i % 2 == 0 && i < 18) {
                unavailable(() -> dependency.call(generous(), failingTransiently()));
            } else {
                dependency.call(generous(), answering("reserved"));
            }
        }

        // Then the breaker stays closed
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void shouldRejectWithBreakerOpenWithoutCallingWhenOpen() {
        // Given an open breaker
        breaker.openDuration(Duration.ofSeconds(30));
        ResilientDependency dependency = create(fastBreaker());
        trip(dependency);
        attempts.set(0);

        // When called
        DependencyUnavailable rejection = unavailable(() -> dependency.call(generous(), answering("reserved")));

        // Then nothing is sent and the rejection is counted
        assertThat(rejection.reason()).isEqualTo(Reason.BREAKER_OPEN);
        assertThat(rejection.dependency()).isEqualTo("inventory");
        assertThat(attempts).hasValue(0);
        assertThat(listener.rejected(Reason.BREAKER_OPEN)).isEqualTo(1);
        assertThat(listener.circuitGauge()).isEqualTo(2);
    }

    @Test
    void shouldCountCallWithThreeTransientAttemptsOnceInBreaker() {
        // Given a breaker judging after 2 calls at 50%, and 3 attempts per call
        breaker.minimumCalls(2);
        retry.maxAttempts(3);
        ResilientDependency dependency = create(fast());

        // When one call fails transiently on all three attempts
        DependencyUnavailable failure = unavailable(() -> dependency.call(generous(), failingTransiently()));

        // Then it gives up with the last failure, and the breaker saw one call, not three
        assertThat(failure.reason()).isEqualTo(Reason.RETRIES_EXHAUSTED);
        assertThat(failure.getCause()).isInstanceOf(TransientFailure.class).hasMessage("503 from inventory");
        assertThat(attempts).hasValue(3);
        assertThat(listener.retries).hasValue(2);
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);

        // And a second, answered call makes it one failure in two calls, which opens the breaker
        dependency.call(generous(), answering("reserved"));
        assertThat(dependency.state()).isEqualTo(CircuitState.OPEN);
    }

    @Test
    void shouldNotOpenBreakerWhenCallsThrowNonTransientExceptions() {
        // Given the inventory threshold and a dependency answering 60% of calls with a refusal
        ResilientDependency dependency = create(fast());
        IllegalStateException refusal = new IllegalStateException("SKU-1 is discontinued");

        // When 100 calls are made
        for (int i = 0; i < 100; i++) {
            if (i % 5 < 3) {
                assertThatThrownBy(() -> dependency.call(generous(), timeout -> {
                    attempts.incrementAndGet();
                    throw refusal;
                })).isSameAs(refusal);
            } else {
                dependency.call(generous(), answering("reserved"));
            }
        }

        // Then the refusals passed through unchanged, were never retried, and the breaker is closed
        assertThat(attempts).hasValue(100);
        assertThat(listener.retries).hasValue(0);
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void shouldCountNonTransientExceptionAsAnsweredCallInBreaker() {
        // Given a breaker judging after 2 calls at 50%
        ResilientDependency dependency = create(fastBreaker());

        // When one call is refused with a non-transient exception and one fails transiently
        assertThatThrownBy(() -> dependency.call(generous(), timeout -> {
            throw new IllegalArgumentException("quantity must be positive");
        })).isInstanceOf(IllegalArgumentException.class);
        unavailable(() -> dependency.call(generous(), failingTransiently()));

        // Then the refusal counted as an answered call: one failure in two calls opens the breaker
        assertThat(dependency.state()).isEqualTo(CircuitState.OPEN);
    }

    @Test
    void shouldPassCheckedExceptionWrappedAndUnretried() {
        // Given a dependency throwing a checked, non-transient exception
        ResilientDependency dependency = create(fast());
        IOException checked = new IOException("malformed response");

        // When called
        Throwable thrown = catchThrowable(() -> dependency.call(generous(), timeout -> {
            attempts.incrementAndGet();
            throw checked;
        }));

        // Then it arrives wrapped, untouched inside, after one attempt
        assertThat(thrown).isInstanceOf(UndeclaredThrowableException.class).hasCause(checked);
        assertThat(thrown.getCause()).isSameAs(checked);
        assertThat(attempts).hasValue(1);
    }

    @Test
    void shouldStopRetryingWhenBudgetIsSpent() {
        // Given a budget of 2 retries that earns nothing back, and 3 attempts per call
        retry.budgetInitial(2).budgetRatio(0.0);
        ResilientDependency dependency = create(fast().withoutBreaker());

        // When two calls fail transiently
        unavailable(() -> dependency.call(generous(), failingTransiently()));
        int attemptsOfFirstCall = attempts.get();
        DependencyUnavailable second = unavailable(() -> dependency.call(generous(), failingTransiently()));

        // Then the first used both retries and the second got none
        assertThat(attemptsOfFirstCall).isEqualTo(3);
        assertThat(attempts).hasValue(4);
        assertThat(second.reason()).isEqualTo(Reason.RETRIES_EXHAUSTED);
        assertThat(listener.retries).hasValue(2);
        assertThat(listener.budgetExhausted).hasValue(1);
    }

    @Test
    void shouldFailWithDeadlineTooShortWithoutCalling() {
        // Given a minimum useful budget of 20 ms
        timeout.minimumUsefulBudget(Duration.ofMillis(20));
        ResilientDependency dependency = create(fast());

        // When called with 10 ms left, and with a deadline long gone
        DependencyUnavailable tooShort = unavailable(
                () -> dependency.call(Deadline.after(Duration.ofMillis(10)), answering("reserved")));
        DependencyUnavailable expired = unavailable(
                () -> dependency.call(Deadline.ofEpochMillis(0), answering("reserved")));

        // Then nothing is sent and no resource is held
        assertThat(tooShort.reason()).isEqualTo(Reason.DEADLINE_TOO_SHORT);
        assertThat(expired.reason()).isEqualTo(Reason.DEADLINE_TOO_SHORT);
        assertThat(attempts).hasValue(0);
        assertThat(dependency.bulkheadInUse()).isZero();
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(listener.rejected(Reason.DEADLINE_TOO_SHORT)).isEqualTo(2);
    }

    @Test
    void shouldEnforceAttemptTimeoutOnBlockingCall() {
        // Given a 100 ms attempt timeout, 3 attempts, and a dependency that hangs for 2 s
        timeout.attemptTimeout(Duration.ofMillis(100));
        ResilientDependency dependency = create(fast());
        List<Duration> given = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();

        // When called
        DependencyUnavailable failure = unavailable(() -> dependency.call(generous(), blockingFor2Seconds(given)));

        // Then each attempt was cut off, the call gave up long before 2 s, and the caller's
        // thread carries no stray interrupt
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        assertThat(failure.reason()).isEqualTo(Reason.TIMEOUT);
        assertThat(failure.getCause()).isInstanceOf(TransientFailure.class);
        assertThat(attempts).hasValue(3);
        assertThat(given).containsOnly(Duration.ofMillis(100));
        assertThat(elapsed).isLessThan(Duration.ofMillis(1_500));
        assertThat(Thread.currentThread().isInterrupted()).isFalse();
    }

    @Test
    void shouldGiveTheBreakerNoVerdictWhenTheDeadlineCutTheAttemptsShort() {
        // Given a 1 s attempt timeout, breaker decisions after two calls, and a dependency that
        // usually answers in 30 ms, then hangs
        ResilientDependency dependency = create(fastBreaker());
        answersIn30Ms(dependency);
        List<Duration> given = new CopyOnWriteArrayList<>();

        // When two calls arrive with twice the usual answer left of their deadline (the rest spent
        // inside the product)
        Duration twoUsualAnswers = twoUsualAnswers(dependency);
        for (int i = 0; i < 2; i++) {
            DependencyUnavailable cut = unavailable(() -> dependency.call(Deadline.after(twoUsualAnswers),
                    blockingFor2Seconds(given)));
            assertThat(cut.reason()).isEqualTo(Reason.TIMEOUT);
            assertThat(cut.cutShort()).isTrue();
        }

        // Then the breaker stays closed: twice the usual answer is no fair chance
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(listener.cutShort()).isEqualTo(2);
    }

    @Test
    void shouldNotSendAnAttemptWithLessTimeThanTheDependencyUsuallyTakes() {
        // Given a dependency that usually answers in 30 ms
        ResilientDependency dependency = create(fastBreaker());
        answersIn30Ms(dependency);

        // When a call comes with 15 ms left of its deadline
        DependencyUnavailable thrown = unavailable(() -> dependency.call(Deadline.after(Duration.ofMillis(15)),
                answering("reserved")));

        // Then nothing is sent (it would time out, its outcome unknown), and it is not the dependency's doing
        assertThat(thrown.reason()).isEqualTo(Reason.DEADLINE_TOO_SHORT);
        assertThat(thrown.mayHaveTakenEffect()).isFalse();
        assertThat(attempts).hasValue(0);
        assertThat(dependency.failingLately()).isFalse();
    }

    @Test
    void shouldJudgeADeadlineTheDependencyCouldNotMeetByTheTimeItWasGiven() {
        // Given breaker decisions after two calls, and a dependency that usually answers in 30 ms
        ResilientDependency dependency = create(fastBreaker());
        answersIn30Ms(dependency);
        AttemptFunction<String> notStarted = timeout -> {
            throw new TimedOutFailure("the deadline would pass first", null, false);
        };

        // When two calls left twice the usual answer are answered that it did not start: the
        // deadline would pass first
        Duration twoUsualAnswers = twoUsualAnswers(dependency);
        for (int i = 0; i < 2; i++) {
            DependencyUnavailable cut = unavailable(() -> dependency.call(Deadline.after(twoUsualAnswers),
                    notStarted));
            // Then each is cut short, without effect, and the breaker has no verdict
            assertThat(cut.cutShort()).isTrue();
            assertThat(cut.mayHaveTakenEffect()).isFalse();
        }
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(dependency.failingLately()).isFalse();

        // And when it answers the same to calls given their whole attempt timeout (more of them than
        // the answers that taught it, so failures are the most of the breaker's window), the fault is its own
        for (int i = 0; i <= MovingAverage.KNOWN_AFTER; i++) {
            assertThat(unavailable(() -> dependency.call(generous(), notStarted)).cutShort()).isFalse();
        }
        assertThat(dependency.state()).isEqualTo(CircuitState.OPEN);
    }

    @Test
    void shouldOpenTheBreakerWhenAttemptsWithAFairChanceTimeOut() {
        // Given a 100 ms attempt timeout, breaker decisions after two calls, and a hanging dependency
        timeout.attemptTimeout(Duration.ofMillis(100));
        ResilientDependency dependency = create(fastBreaker());
        List<Duration> given = new CopyOnWriteArrayList<>();

        // When two calls each give it the whole attempt timeout
        for (int i = 0; i < 2; i++) {
            unavailable(() -> dependency.call(generous(), blockingFor2Seconds(given)));
        }

        // Then the timeouts are its own: the breaker opens
        assertThat(dependency.state()).isEqualTo(CircuitState.OPEN);
        assertThat(listener.cutShort()).isZero();
    }

    @Test
    void shouldNeverLetAttemptsOutliveDeadline() {
        // Given 10 attempts of 100 ms each but only 250 ms until the deadline
        timeout.attemptTimeout(Duration.ofMillis(100)).minimumUsefulBudget(Duration.ofMillis(20));
        retry.maxAttempts(10);
        ResilientDependency dependency = create(fast());
        List<Duration> given = new CopyOnWriteArrayList<>();
        long start = System.nanoTime();

        // When every attempt hangs
        DependencyUnavailable failure = unavailable(
                () -> dependency.call(Deadline.after(Duration.ofMillis(250)), blockingFor2Seconds(given)));

        // Then the attempts together were given no more than the deadline allowed
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        Duration total = given.stream().reduce(Duration.ZERO, Duration::plus);
        assertThat(failure.reason()).isEqualTo(Reason.TIMEOUT);
        assertThat(given).hasSizeBetween(2, 3);
        assertThat(total).isLessThanOrEqualTo(Duration.ofMillis(250));
        assertThat(elapsed).isLessThan(Duration.ofMillis(700));
    }

    @Test
    void shouldReportExpiredOpenBreakerAsHalfOpen() {
        // Given a breaker opened for 200 ms
        ResilientDependency dependency = create(fastBreaker());
        trip(dependency);
        assertThat(listener.circuitGauge()).isEqualTo(2);

        // When the open duration passes without any call
        // Then a gauge reading the stack reports half-open by itself, and the listener heard it
        await().atMost(WAIT).until(() -> listener.circuitGauge() == 1);
        assertThat(dependency.state()).isEqualTo(CircuitState.HALF_OPEN);
        assertThat(listener.transitions).containsExactly(CircuitState.OPEN, CircuitState.HALF_OPEN);
    }

    @Test
    void shouldAdmitAtMostHalfOpenTrialsConcurrently() throws Exception {
        // Given a half-open breaker allowing 3 trials
        breaker.halfOpenTrials(3);
        ResilientDependency dependency = create(fastBreaker());
        trip(dependency);
        awaitHalfOpen(dependency);
        attempts.set(0);
        AtomicInteger running = new AtomicInteger();
        AtomicInteger mostRunning = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        CountDownLatch release = new CountDownLatch(1);
        AttemptFunction<String> slowTrial = timeout -> {
            attempts.incrementAndGet();
            mostRunning.accumulateAndGet(running.incrementAndGet(), Math::max);
            try {
                release.await(WAIT.toMillis(), MILLISECONDS);
                return "reserved";
            } finally {
                running.decrementAndGet();
            }
        };
        ExecutorService pool = Executors.newFixedThreadPool(10);
        List<String> outcomes = new ArrayList<>();
        try {
            // When ten calls arrive at once
            List<Future<String>> calls = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
                calls.add(pool.submit(() -> {
                    try {
                        return dependency.call(generous(), slowTrial);
                    } catch (DependencyUnavailable e) {
                        rejected.incrementAndGet();
                        return e.reason().name();
                    }
                }));
            }

            // Then three run as trials while the other seven are rejected
            await().atMost(WAIT).until(() -> attempts.get() == 3 && rejected.get() == 7);
            release.countDown();
            for (Future<String> call : calls) {
                outcomes.add(call.get(WAIT.toMillis(), MILLISECONDS));
            }
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
        assertThat(mostRunning).hasValue(3);
        assertThat(outcomes).filteredOn("reserved"::equals).hasSize(3);
        assertThat(outcomes).filteredOn("BREAKER_OPEN"::equals).hasSize(7);
        assertThat(listener.rejected(Reason.BREAKER_OPEN)).isEqualTo(7);

        // And the three successful trials closed the breaker
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);
    }

    @Test
    void shouldNotifyListenerOfEveryTransitionEndingClosed() {
        // Given a listener and a breaker that has opened
        breaker.halfOpenTrials(3);
        ResilientDependency dependency = create(fastBreaker());
        List<CircuitState> seen = new CopyOnWriteArrayList<>();
        dependency.onStateChange(seen::add);
        trip(dependency);
        awaitHalfOpen(dependency);

        // When two trials succeed, then a third
        dependency.call(generous(), answering("reserved"));
        dependency.call(generous(), answering("reserved"));
        CircuitState afterTwo = dependency.state();
        dependency.call(generous(), answering("reserved"));

        // Then it takes all three to close, and the listener saw each transition in order
        assertThat(afterTwo).isEqualTo(CircuitState.HALF_OPEN);
        assertThat(seen).containsExactly(CircuitState.OPEN, CircuitState.HALF_OPEN, CircuitState.CLOSED);
        assertThat(listener.transitions).isEqualTo(seen);
        assertThat(listener.circuitGauge()).isZero();
    }

    @Test
    void shouldReopenWhenHalfOpenTrialFails() {
        // Given a half-open breaker and a listener
        ResilientDependency dependency = create(fastBreaker());
        List<CircuitState> seen = new CopyOnWriteArrayList<>();
        dependency.onStateChange(seen::add);
        trip(dependency);
        awaitHalfOpen(dependency);

        // When the trial fails
        unavailable(() -> dependency.call(generous(), failingTransiently()));

        // Then the breaker is open again
        assertThat(dependency.state()).isEqualTo(CircuitState.OPEN);
        assertThat(seen).containsExactly(CircuitState.OPEN, CircuitState.HALF_OPEN, CircuitState.OPEN);
    }

    @Test
    void shouldKeepFailingListenerFromBreakingCallsOrOtherListeners() {
        // Given a listener that throws and one that records
        ResilientDependency dependency = create(fastBreaker());
        List<CircuitState> seen = new CopyOnWriteArrayList<>();
        dependency.onStateChange(state -> {
            throw new IllegalStateException("listener bug");
        });
        dependency.onStateChange(seen::add);

        // When the breaker opens
        unavailable(() -> dependency.call(generous(), failingTransiently()));
        DependencyUnavailable tripping = unavailable(() -> dependency.call(generous(), failingTransiently()));

        // Then the call that tripped it still reports the dependency, and the other listener heard
        assertThat(tripping.reason()).isEqualTo(Reason.RETRIES_EXHAUSTED);
        assertThat(seen).containsExactly(CircuitState.OPEN);
    }

    @Test
    void shouldRejectWithBulkheadFullWhenPermitsTaken() throws Exception {
        // Given a bulkhead of one permit, held by a slow call
        bulkhead.permits(1).maxWait(Duration.ofMillis(20));
        ResilientDependency dependency = create(fast());
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<String> slow = pool.submit(() -> dependency.call(generous(), timeout -> {
                entered.countDown();
                release.await(WAIT.toMillis(), MILLISECONDS);
                return "slow";
            }));
            assertThat(entered.await(WAIT.toMillis(), MILLISECONDS)).isTrue();

            // When another call arrives
            DependencyUnavailable rejection = unavailable(() -> dependency.call(generous(), answering("fast")));

            // Then it is rejected without being sent, and the permit is visible as in use
            assertThat(rejection.reason()).isEqualTo(Reason.BULKHEAD_FULL);
            assertThat(attempts).hasValue(0);
            assertThat(listener.rejected(Reason.BULKHEAD_FULL)).isEqualTo(1);
            assertThat(listener.created.bulkheadInUse()).isEqualTo(1);

            // And once the slow call is done the permit is back
            release.countDown();
            assertThat(slow.get(WAIT.toMillis(), MILLISECONDS)).isEqualTo("slow");
            assertThat(listener.created.bulkheadInUse()).isZero();
        } finally {
            release.countDown();
            pool.shutdownNow();
        }
    }

    @Test
    void shouldHoldABulkheadPlaceForThisThreadsNextCallAndRefuseWhenNoneIsLeft() {
        // Given a bulkhead of one permit and a healthy dependency
        bulkhead.permits(1).maxWait(Duration.ofMillis(20));
        ResilientDependency dependency = create(fast());
        List<Reason> refusals = new ArrayList<>();

        // When a place is held before the work that will call
        Permit place = dependency.holdPlace(generous(), false, refusals::add).orElseThrow();

        // Then the bulkhead is taken, a second holder is refused as full, and nothing was sent
        assertThat(dependency.bulkheadInUse()).isEqualTo(1);
        assertThat(dependency.holdPlace(generous(), false, refusals::add)).isEmpty();
        assertThat(refusals).containsExactly(Reason.BULKHEAD_FULL);
        assertThat(attempts).hasValue(0);

        // And the thread's call goes through on the held place, which it gives back when it ends
        assertThat(dependency.call(generous(), answering("ok"))).isEqualTo("ok");
        assertThat(dependency.bulkheadInUse()).isZero();
        place.close();
        assertThat(dependency.bulkheadInUse()).isZero();
    }

    @Test
    void shouldRefuseAPlaceWhenTheDeadlineLeavesNoFairAttempt() {
        // Given a dependency whose usual answer time is known (about 30 ms)
        ResilientDependency dependency = create(fast());
        answersIn30Ms(dependency);
        List<Reason> refusals = new ArrayList<>();

        // When the deadline leaves less than three usual answers while the product is congested
        // Then no place is held, for want of time, and nothing is taken
        assertThat(dependency.holdPlace(Deadline.after(Duration.ofMillis(40)), true, refusals::add)).isEmpty();
        assertThat(refusals).containsExactly(Reason.DEADLINE_TOO_SHORT);
        assertThat(dependency.bulkheadInUse()).isZero();
        // ... while a deadline with room gets its place, and so does a short one while the product is
        // not congested: the call is given what is left, as any call
        dependency.holdPlace(Deadline.after(Duration.ofSeconds(1)), true, refusals::add).orElseThrow().close();
        dependency.holdPlace(Deadline.after(Duration.ofMillis(40)), false, refusals::add).orElseThrow().close();
        assertThat(refusals).hasSize(1);
        assertThat(dependency.bulkheadInUse()).isZero();
    }

    @Test
    void shouldNotTakeAColdStartsFirstSlowAnswerForTheUsualOne() {
        // Given a dependency whose first answer, a cold start's, took 400 ms
        ResilientDependency dependency = create(fast());
        dependency.call(generous(), timeout -> {
            Thread.sleep(400);
            return "ok";
        });
        List<Reason> refusals = new ArrayList<>();

        // When a submission asks for a place with 1 s left while the product is congested, less than
        // three times that first answer
        // Then it gets one: one answer is not yet a usual time
        dependency.holdPlace(Deadline.after(Duration.ofSeconds(1)), true, refusals::add).orElseThrow().close();
        // And once quick answers follow, the slow one is diluted among them, not remembered for dozens
        for (int i = 1; i < MovingAverage.KNOWN_AFTER; i++) {
            dependency.call(generous(), answering("ok"));
        }
        assertThat(dependency.fairAttempt()).isLessThan(Duration.ofMillis(400));
        dependency.holdPlace(Deadline.after(Duration.ofSeconds(1)), true, refusals::add).orElseThrow().close();
        assertThat(refusals).isEmpty();
    }

    @Test
    void shouldHoldAHighSubmissionsPlaceWithoutJudgingItsDeadlineAndSendItsCallWithWhatIsLeft() {
        // Given a dependency whose usual answer time is known (about 30 ms), the product congested
        ResilientDependency dependency = create(fast().withoutRetries());
        answersIn30Ms(dependency);
        List<Reason> refusals = new ArrayList<>();

        // When a high-priority submission asks for a place with 25 ms left
        Permit place = dependency.holdPlace(Deadline.after(Duration.ofMillis(25)), true, Priority.HIGH,
                refusals::add).orElseThrow();
        // Then it gets one, and its call is sent with what is left, less than the usual answer
        List<Duration> given = new CopyOnWriteArrayList<>();
        DependencyUnavailable cut = unavailable(() -> dependency.call(Deadline.after(Duration.ofMillis(25)),
                blockingFor2Seconds(given)));
        place.close();
        assertThat(given).hasSize(1);
        assertThat(cut.reason()).isEqualTo(Reason.TIMEOUT);
        assertThat(cut.cutShort()).isTrue();
        // And a normal one in the same place is refused for want of time, nothing sent
        assertThat(dependency.holdPlace(Deadline.after(Duration.ofMillis(25)), true, Priority.NORMAL,
                refusals::add)).isEmpty();
        assertThat(refusals).containsExactly(Reason.DEADLINE_TOO_SHORT);
    }

    @Test
    void shouldHoldNothingAndRefuseNothingOnceTheDependencyFailedByItsOwnFault() {
        // Given a bulkhead of one permit taken, and a dependency that failed of its own accord
        bulkhead.permits(1).maxWait(Duration.ofMillis(20));
        ResilientDependency dependency = create(fast().withoutRetries());
        unavailable(() -> dependency.call(generous(), failingTransiently()));
        Permit first = dependency.holdPlace(generous(), false, r -> { }).orElseThrow();
        List<Reason> refusals = new ArrayList<>();

        // When another place is asked for
        // Then it is not refused: the call will tell, and degraded mode answers for it
        assertThat(dependency.holdPlace(generous(), false, refusals::add)).isPresent();
        assertThat(refusals).isEmpty();
        first.close();
    }

    @Test
    void shouldCountTheDependencyAsFailingWhenItsOverdueCallsFillTheBulkheadAndTheProductIsNotCongested()
            throws Exception {
        // Given a bulkhead of two places and a dependency that usually answers in 30 ms, then hangs
        bulkhead.permits(2).maxWait(Duration.ofMillis(20));
        timeout.attemptTimeout(Duration.ofSeconds(5));
        ResilientDependency dependency = create(fast().withoutRetries());
        answersIn30Ms(dependency);
        CountDownLatch entered = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Reason> refusals = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                pool.submit(() -> dependency.call(generous(), timeout -> {
                    entered.countDown();
                    release.await(WAIT.toMillis(), MILLISECONDS);
                    return "late";
                }));
            }
            assertThat(entered.await(WAIT.toMillis(), MILLISECONDS)).isTrue();

            // When its two calls have been on the wire longer than three usual answers
            Thread.sleep(dependency.fairAttempt().toMillis() + 50);

            // Then a submission while the product is congested is refused as the product's want of room ...
            assertThat(dependency.holdPlace(generous(), true, refusals::add)).isEmpty();
            assertThat(refusals).containsExactly(Reason.BULKHEAD_FULL);
            assertThat(dependency.failingLately()).isFalse();
            // ... and one while it is not is let through to degraded mode: the full bulkhead is the dependency's doing
            assertThat(dependency.holdPlace(generous(), false, refusals::add)).isPresent();
            assertThat(refusals).hasSize(1);
            assertThat(dependency.failingLately()).isTrue();
        } finally {
            release.countDown();
            pool.shutdown();
            assertThat(pool.awaitTermination(WAIT.toMillis(), MILLISECONDS)).isTrue();
        }
    }

    @Test
    void shouldNotCountOverdueCallsAgainstTheDependencyWhileItsCallsStillComeOffTheWire() throws Exception {
        // Given a bulkhead of two places and a dependency that usually answers in 30 ms, both places
        // held by calls sent longer ago than it usually takes (a product short of CPU stretches them)
        bulkhead.permits(2).maxWait(Duration.ofMillis(20));
        timeout.attemptTimeout(Duration.ofSeconds(5));
        ResilientDependency dependency = create(fast().withoutRetries());
        answersIn30Ms(dependency);
        ExecutorService pool = Executors.newFixedThreadPool(3);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch first = new CountDownLatch(1);
        List<Reason> refusals = new ArrayList<>();
        try {
            CountDownLatch entered = new CountDownLatch(2);
            pool.submit(() -> dependency.call(generous(), timeout -> {
                entered.countDown();
                first.await(WAIT.toMillis(), MILLISECONDS);
                return "answered late";
            }));
            pool.submit(() -> dependency.call(generous(), timeout -> {
                entered.countDown();
                release.await(WAIT.toMillis(), MILLISECONDS);
                return "late";
            }));
            assertThat(entered.await(WAIT.toMillis(), MILLISECONDS)).isTrue();
            Thread.sleep(dependency.fairAttempt().toMillis() + 50);

            // When one of them is answered and another call takes its place at once
            CountDownLatch third = new CountDownLatch(1);
            first.countDown();
            pool.submit(() -> dependency.call(generous(), timeout -> {
                third.countDown();
                release.await(WAIT.toMillis(), MILLISECONDS);
                return "late";
            }));
            assertThat(third.await(WAIT.toMillis(), MILLISECONDS)).isTrue();

            // Then a submission, the product not congested, finds the bulkhead full and the product's
            // want of room: the dependency still answers, so its full bulkhead is not counted against it
            assertThat(dependency.holdPlace(generous(), false, refusals::add)).isEmpty();
            assertThat(refusals).containsExactly(Reason.BULKHEAD_FULL);
            assertThat(dependency.failingLately()).isFalse();
        } finally {
            first.countDown();
            release.countDown();
            pool.shutdown();
            assertThat(pool.awaitTermination(WAIT.toMillis(), MILLISECONDS)).isTrue();
        }
    }

    @Test
    void shouldNotCountAWholeAttemptThatTimedOutWhileTheCoresWereTakenAndTheDependencyAnsweredOthers()
            throws Exception {
        // Given a dependency that usually answers in 30 ms, and a machine whose runnable tasks wait
        // for a core all along (its pressure stall information)
        DependencyUnavailable failure = wholeAttemptTimingOut(true);

        // Then the timeout is the product's doing: the call counts as cut short, the dependency not failing
        assertThat(failure.reason()).isEqualTo(Reason.TIMEOUT);
        assertThat(failure.cutShort()).isTrue();
    }

    @Test
    void shouldCountAWholeAttemptThatTimedOutAgainstTheDependencyWhenTheCoresWereFree() throws Exception {
        // Given the same dependency, on a machine with cores to spare
        DependencyUnavailable failure = wholeAttemptTimingOut(false);

        // Then the timeout is the dependency's
        assertThat(failure.reason()).isEqualTo(Reason.TIMEOUT);
        assertThat(failure.cutShort()).isFalse();
    }

    /**
     * A whole attempt of 200 ms that times out while another call is answered; when {@code heldUp},
     * the pressure stall information counts a second of waiting for a core meanwhile.
     */
    private DependencyUnavailable wholeAttemptTimingOut(boolean heldUp) throws Exception {
        java.nio.file.Path psi = java.nio.file.Files.createTempFile("cpu-pressure", "");
        try {
            java.nio.file.Files.writeString(psi, "some avg10=0.00 avg60=0.00 avg300=0.00 total=1000\n"
                    + "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n");
            timeout.attemptTimeout(Duration.ofMillis(200));
            ResilientDependency dependency = ResilientDependency.create(fast().withoutRetries(), listener,
                    new CpuPressure(psi, System::nanoTime));
            answersIn30Ms(dependency);
            ExecutorService other = Executors.newSingleThreadExecutor();
            try {
                // When a whole attempt times out, another call answered and the stall counted meanwhile
                return unavailable(() -> dependency.call(generous(), t -> {
                    other.submit(() -> dependency.call(generous(), t2 -> "answered")).get();
                    if (heldUp) {
                        java.nio.file.Files.writeString(psi, "some avg10=90.00 avg60=0.00 avg300=0.00 total=1001000\n");
                    }
                    Thread.sleep(WAIT.toMillis());
                    return "too late";
                }));
            } finally {
                assertThat(dependency.failingLately()).isEqualTo(!heldUp);
                other.shutdown();
            }
        } finally {
            java.nio.file.Files.delete(psi);
        }
    }

    @Test
    void shouldNotCountCallsAsOverdueBeforeTheirOwnTimeoutWhileTheUsualAnswerIsUnknown() throws Exception {
        // Given a bulkhead of one place, held by a call on the wire of a dependency not yet heard from
        bulkhead.permits(1).maxWait(Duration.ofMillis(20));
        timeout.attemptTimeout(Duration.ofSeconds(5));
        ResilientDependency dependency = create(fast().withoutRetries());
        CountDownLatch entered = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        List<Reason> refusals = new ArrayList<>();
        try {
            pool.submit(() -> dependency.call(generous(), timeout -> {
                entered.countDown();
                release.await(WAIT.toMillis(), MILLISECONDS);
                return "first";
            }));
            assertThat(entered.await(WAIT.toMillis(), MILLISECONDS)).isTrue();

            // When a submission asks for a place, the product not congested
            // Then it is refused as full: nothing says the call is late yet
            assertThat(dependency.holdPlace(generous(), false, refusals::add)).isEmpty();
            assertThat(refusals).containsExactly(Reason.BULKHEAD_FULL);
            assertThat(dependency.failingLately()).isFalse();
        } finally {
            release.countDown();
            pool.shutdown();
            assertThat(pool.awaitTermination(WAIT.toMillis(), MILLISECONDS)).isTrue();
        }
    }

    @Test
    void shouldBuildReducedStackWithoutBreakerBulkheadOrRetries() {
        // Given a stack with only the timeout layer
        breaker.minimumCalls(2);
        ResilienceConfig bare = fast().withoutBreaker().withoutBulkhead().withoutRetries();
        ResilientDependency dependency = create(bare);

        // When ten calls fail transiently
        for (int i = 0; i < 10; i++) {
            DependencyUnavailable failure = unavailable(() -> dependency.call(generous(), failingTransiently()));
            assertThat(failure.reason()).isEqualTo(Reason.RETRIES_EXHAUSTED);
        }

        // Then each was tried once and nothing ever rejected them
        assertThat(attempts).hasValue(10);
        assertThat(dependency.state()).isEqualTo(CircuitState.CLOSED);
        assertThat(listener.circuitGauge()).isZero();
        assertThat(listener.created.bulkheadInUse()).isZero();
        assertThat(listener.transitions).isEmpty();
    }

    @Test
    void shouldKeepCallsWorkingWhenListenerThrows() {
        // Given a listener that fails on every event
        ResilientDependency dependency = ResilientDependency.create(fastBreaker(), new ResilienceListener() {
            @Override
            public void onRetry(String name, int attempt) {
                throw new IllegalStateException("metrics bug");
            }

            @Override
            public void onRejected(String name, Reason reason) {
                throw new IllegalStateException("metrics bug");
            }

            @Override
            public void onStateChange(String name, CircuitState state) {
                throw new IllegalStateException("metrics bug");
            }
        });

        // When the breaker opens and then rejects a call
        trip(dependency);
        DependencyUnavailable rejection = unavailable(() -> dependency.call(generous(), answering("reserved")));

        // Then the calls report the dependency's state, not the listener's fault
        assertThat(rejection.reason()).isEqualTo(Reason.BREAKER_OPEN);
    }

    @Test
    void shouldFailCreationWhenListenerRefusesStack() {
        // Given a listener that refuses any stack, as a metrics binding refuses a second of one name
        ResilienceListener refusing = new ResilienceListener() {
            @Override
            public void onCreated(ResilientDependency dependency) {
                throw new IllegalStateException("'" + dependency.name() + "' is already registered");
            }
        };

        // When a stack is created with it
        // Then the creation fails with the listener's reason
        assertThatThrownBy(() -> ResilientDependency.create(fast(), refusing))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("inventory");
    }

    @Test
    void shouldTellListenerOfCreationBeforeReturning() {
        // When a stack is created
        ResilientDependency dependency = create(fast());

        // Then the listener holds it, to read its gauges from
        assertThat(listener.created).isSameAs(dependency);
    }
}
