package org.sagas.orchestrator.resilience;

import java.util.Optional;
import java.util.function.Consumer;

/** The circuit breaker layer as {@link ResilientDependency} sees it. Implementations are thread-safe. */
interface Breaker {

    /** Admits one call, or returns empty if the breaker rejects it. */
    Optional<Admission> tryAdmit();

    /** Returns the current state, first moving an expired open breaker to half-open. */
    CircuitState state();

    /** Registers a listener called on every transition. */
    void onStateChange(Consumer<CircuitState> listener);

    /** Returns a breaker that admits everything, for stacks built without one. */
    static Breaker alwaysClosed() {
        return AlwaysClosed.INSTANCE;
    }

    /**
     * One admitted call. Settle it with at most one of {@link #succeeded()} or {@link #failed()},
     * then close it; closing without settling records nothing (no verdict on the dependency).
     */
    interface Admission extends AutoCloseable {

        /** The dependency answered, whatever the answer. */
        void succeeded();

        /** The dependency failed transiently on every attempt. */
        void failed();

        /** Frees the admission's slot, if it took one. Idempotent; never throws. */
        @Override
        void close();
    }

    /** The breaker of a stack built without one. */
    enum AlwaysClosed implements Breaker, Admission {
        INSTANCE;

        @Override
        public Optional<Admission> tryAdmit() {
            return Optional.of(this);
        }

        @Override
        public CircuitState state() {
            return CircuitState.CLOSED;
        }

        @Override
        public void onStateChange(Consumer<CircuitState> listener) {
            // Never transitions, so there is nothing to tell the listener.
        }

        @Override
        public void succeeded() {
            // Nothing to record.
        }

        @Override
        public void failed() {
            // Nothing to record.
        }

        @Override
        public void close() {
            // Holds no slot.
        }
    }
}
