package org.sagas.orchestrator.resilience;

import java.util.Objects;
import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Passes events to a {@link ResilienceListener}, logging what it throws: a broken metrics binding
 * must not fail the call that happened to report. {@link #onCreated} is passed unguarded, since a
 * listener may refuse a stack there. Thread-safe if the listener is.
 */
final class GuardedListener implements ResilienceListener {

    private static final Logger LOG = LoggerFactory.getLogger(GuardedListener.class);

    private final ResilienceListener listener;

    GuardedListener(ResilienceListener listener) {
        this.listener = Objects.requireNonNull(listener, "listener");
    }

    @Override
    public void onCreated(ResilientDependency dependency) {
        listener.onCreated(dependency);
    }

    @Override
    public void onRetry(String dependency, int attempt) {
        guarded("onRetry", dependency, () -> listener.onRetry(dependency, attempt));
    }

    @Override
    public void onRetryBudgetExhausted(String dependency) {
        guarded("onRetryBudgetExhausted", dependency, () -> listener.onRetryBudgetExhausted(dependency));
    }

    @Override
    public void onRejected(String dependency, Reason reason) {
        guarded("onRejected", dependency, () -> listener.onRejected(dependency, reason));
    }

    @Override
    public void onStateChange(String dependency, CircuitState state) {
        guarded("onStateChange", dependency, () -> listener.onStateChange(dependency, state));
    }

    @Override
    public void onShed(Priority priority) {
        guarded("onShed", priority.tagValue() + " priority", () -> listener.onShed(priority));
    }

    @Override
    public void onLimitChanged(int limit, long baselineNanos, long averageNanos, long lagNanos) {
        guarded("onLimitChanged", "admission", () -> listener.onLimitChanged(limit, baselineNanos, averageNanos,
                lagNanos));
    }

    @Override
    public void onCutShort(String dependency) {
        guarded("onCutShort", dependency, () -> listener.onCutShort(dependency));
    }

    private static void guarded(String event, String subject, Runnable call) {
        try {
            call.run();
        } catch (RuntimeException e) {
            LOG.error("Resilience listener failed on {} for {}", event, subject, e);
        }
    }
}
