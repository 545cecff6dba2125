package org.sagas.orchestrator.resilience;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;

/** Records every event, as a metrics binding would count them. Thread-safe. */
final class RecordingListener implements ResilienceListener {
    private final java.util.concurrent.atomic.AtomicInteger cutShort = new java.util.concurrent.atomic.AtomicInteger();

    final AtomicInteger retries = new AtomicInteger();
    final List<Integer> retryAttempts = new CopyOnWriteArrayList<>();
    final AtomicInteger budgetExhausted = new AtomicInteger();
    final List<CircuitState> transitions = new CopyOnWriteArrayList<>();
    private final Map<Reason, AtomicInteger> rejected = new ConcurrentHashMap<>();
    private final Map<Priority, AtomicInteger> shed = new ConcurrentHashMap<>();
    volatile ResilientDependency created;

    @Override
    public void onCreated(ResilientDependency dependency) {
        created = dependency;
    }

    @Override
    public void onRetry(String dependency, int attempt) {
        retries.incrementAndGet();
        retryAttempts.add(attempt);
    }

    @Override
    public void onRetryBudgetExhausted(String dependency) {
        budgetExhausted.incrementAndGet();
    }

    @Override
    public void onRejected(String dependency, Reason reason) {
        rejected.computeIfAbsent(reason, r -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void onStateChange(String dependency, CircuitState state) {
        transitions.add(state);
    }

    @Override
    public void onShed(Priority priority) {
        shed.computeIfAbsent(priority, p -> new AtomicInteger()).incrementAndGet();
    }

    @Override
    public void onCutShort(String dependency) {
        cutShort.incrementAndGet();
    }

    int cutShort() {
        return cutShort.get();
    }

    int shed(Priority priority) {
        AtomicInteger count = shed.get(priority);
        return count == null ? 0 : count.get();
    }

    int rejected(Reason reason) {
        AtomicInteger count = rejected.get(reason);
        return count == null ? 0 : count.get();
    }

    /** What a {@code saga_circuit_state} gauge would read from the stack now. */
    int circuitGauge() {
        return created.state().gaugeValue();
    }
}
