package org.sagas.orchestrator.resilience;

import dev.failsafe.CircuitBreaker;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A Failsafe {@link CircuitBreaker} used as a state machine with windowed statistics, with two
 * Failsafe 3.3.2 faults designed around:
 *
 * <ul>
 *   <li>open becomes half-open only lazily, on the next call: {@link #state()} makes the move as
 *       soon as the open duration has passed, so gauges and listeners see it without traffic;
 *   <li>half-open can admit more trials than configured under concurrency (a known Failsafe fault): a
 *       semaphore of {@code halfOpenTrials} slots is the only gate in half-open, Failsafe's own
 *       permits are not used at all.
 * </ul>
 *
 * <p>Thread-safe. Every use of the Failsafe breaker holds one lock, which makes "open and expired,
 * so half-open it" atomic (otherwise a slow thread could half-open a breaker that a failed trial
 * has just reopened) and tells listeners about transitions in the order they happened. Listeners
 * therefore run with that lock held: they must be quick and hand real work to another thread.
 */
final class FailsafeBreaker implements Breaker {

    private static final Logger LOG = LoggerFactory.getLogger(FailsafeBreaker.class);

    private final String dependency;
    private final CircuitBreaker<Object> breaker;
    private final Semaphore trialSlots;
    private final List<Consumer<CircuitState>> listeners = new CopyOnWriteArrayList<>();
    private final Object lock = new Object();

    FailsafeBreaker(String dependency, BreakerConfig config) {
        this.dependency = dependency;
        this.trialSlots = new Semaphore(config.halfOpenTrials());
        this.breaker = CircuitBreaker.<Object>builder()
                .withFailureRateThreshold(config.failureRateThresholdPercent(), config.minimumCalls(),
                        config.failureWindow())
                .withDelay(config.openDuration())
                // In half-open, this many successes close the breaker and any failure reopens it.
                .withSuccessThreshold(config.halfOpenTrials())
                .onOpen(event -> announce(CircuitState.OPEN))
                .onHalfOpen(event -> announce(CircuitState.HALF_OPEN))
                .onClose(event -> announce(CircuitState.CLOSED))
                .build();
    }

    @Override
    public CircuitState state() {
        synchronized (lock) {
            if (breaker.isOpen() && breaker.getRemainingDelay().isZero()) {
                breaker.halfOpen();
            }
            return current();
        }
    }

    @Override
    public Optional<Admission> tryAdmit() {
        synchronized (lock) {
            CircuitState state = state();
            if (state == CircuitState.OPEN) {
                return Optional.empty();
            }
            boolean trial = state == CircuitState.HALF_OPEN;
            if (trial && !trialSlots.tryAcquire()) {
                return Optional.empty();
            }
            return Optional.of(new TrackedAdmission(trial));
        }
    }

    @Override
    public void onStateChange(Consumer<CircuitState> listener) {
        listeners.add(Objects.requireNonNull(listener, "listener"));
    }

    private void record(boolean trial, boolean success) {
        synchronized (lock) {
            CircuitState now = current();
            // A result is evidence only about the state it was admitted in: a call sent while
            // closed says nothing about a recovery being tried now, and an open breaker has
            // already made up its mind.
            boolean relevant = now == CircuitState.CLOSED || (now == CircuitState.HALF_OPEN && trial);
            if (!relevant) {
                return;
            }
            if (success) {
                breaker.recordSuccess();
            } else {
                breaker.recordFailure();
            }
        }
    }

    private CircuitState current() {
        return switch (breaker.getState()) {
            case CLOSED -> CircuitState.CLOSED;
            case HALF_OPEN -> CircuitState.HALF_OPEN;
            case OPEN -> CircuitState.OPEN;
        };
    }

    private void announce(CircuitState state) {
        if (state == CircuitState.OPEN) {
            LOG.warn("Circuit breaker for {} is now {}", dependency, state);
        } else {
            LOG.info("Circuit breaker for {} is now {}", dependency, state);
        }
        for (Consumer<CircuitState> listener : listeners) {
            try {
                listener.accept(state);
            } catch (RuntimeException e) {
                // One broken listener must neither stop the others nor fail the call that
                // happened to cause the transition.
                LOG.error("Circuit state listener for {} failed on {}", dependency, state, e);
            }
        }
    }

    /** An admitted call; a trial holds one of the half-open slots until closed. */
    private final class TrackedAdmission implements Admission {
        private final boolean trial;
        private final AtomicBoolean settled = new AtomicBoolean();
        private final AtomicBoolean closed = new AtomicBoolean();

        TrackedAdmission(boolean trial) {
            this.trial = trial;
        }

        @Override
        public void succeeded() {
            if (settled.compareAndSet(false, true)) {
                record(trial, true);
            }
        }

        @Override
        public void failed() {
            if (settled.compareAndSet(false, true)) {
                record(trial, false);
            }
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true) && trial) {
                trialSlots.release();
            }
        }
    }
}
