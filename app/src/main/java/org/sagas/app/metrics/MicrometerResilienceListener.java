package org.sagas.app.metrics;

import java.util.Locale;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import org.sagas.orchestrator.resilience.DependencyUnavailable.Reason;
import org.sagas.orchestrator.resilience.Priority;
import org.sagas.orchestrator.resilience.ResilienceListener;
import org.sagas.orchestrator.resilience.ResilientDependency;

/**
 * The one place where the resilience package's events become Micrometer meters. Names are
 * Micrometer's dotted form of the public contract's Prometheus names, each tagged with
 * {@code dependency}: {@code saga_circuit_state} (0 closed, 1 half-open, 2 open, read from the
 * stack at each scrape, so an expired open breaker shows half-open without traffic), {@code
 * saga_bulkhead_in_use}, {@code saga_circuit_rejections_total}, {@code saga_retries_total} and
 * {@code saga_retry_budget_exhausted_total}; and {@code saga_shed_total{priority}} for the load
 * shedder, registered at 0 for each priority. Thread-safe; one instance serves every stack and the
 * shedder of a registry.
 */
public final class MicrometerResilienceListener implements ResilienceListener {

    static final String DEPENDENCY = "dependency";
    static final String CIRCUIT_STATE = "saga.circuit.state";
    static final String CIRCUIT_REJECTIONS = "saga.circuit.rejections";
    static final String BULKHEAD_IN_USE = "saga.bulkhead.in.use";
    static final String RETRIES = "saga.retries";
    static final String RETRY_BUDGET_EXHAUSTED = "saga.retry.budget.exhausted";
    static final String SHED = "saga.shed";
    static final String CUT_SHORT = "saga.calls.cut.short";

    private final MeterRegistry registry;
    private final Map<String, Counters> counters = new ConcurrentHashMap<>();
    private final Map<Priority, Counter> shed = new EnumMap<>(Priority.class);
    private static final long LIMIT_LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final Logger log = LoggerFactory.getLogger(MicrometerResilienceListener.class);
    private final AtomicInteger lastLimit = new AtomicInteger();
    private final AtomicLong limitLoggedAt = new AtomicLong(
            System.nanoTime() - LIMIT_LOG_EVERY_NANOS);

    /** Binds to {@code registry}, registering the shed counters at once. */
    public MicrometerResilienceListener(MeterRegistry registry) {
        this.registry = Objects.requireNonNull(registry, "registry");
        for (Priority priority : Priority.values()) {
            shed.put(priority, Counter.builder(SHED)
                    .description("Requests refused before any work, by priority")
                    .tag("priority", priority.tagValue())
                    .register(registry));
        }
    }

    /**
     * Registers the stack's counters (at 0, so they are scraped before the first event) and its
     * gauges.
     *
     * @throws IllegalStateException if the registry already has a stack of that name: its gauges
     *     would keep reporting the first stack's breaker
     */
    @Override
    public void onCreated(ResilientDependency dependency) {
        String name = dependency.name();
        if (registry.find(CIRCUIT_STATE).tag(DEPENDENCY, name).gauge() != null) {
            throw new IllegalStateException("a resilient dependency named '" + name + "' is already registered");
        }
        counters.put(name, new Counters(registry, name));
        // Strong references: the registry must not report NaN because nobody else holds the stack.
        Gauge.builder(CIRCUIT_STATE, dependency, d -> d.state().gaugeValue())
                .description("Circuit breaker state: 0 closed, 1 half-open, 2 open")
                .tag(DEPENDENCY, name)
                .strongReference(true)
                .register(registry);
        Gauge.builder(BULKHEAD_IN_USE, dependency, ResilientDependency::bulkheadInUse)
                .description("Bulkhead permits currently taken")
                .tag(DEPENDENCY, name)
                .strongReference(true)
                .register(registry);
    }

    @Override
    public void onRetry(String dependency, int attempt) {
        counters(dependency).retries.increment();
    }

    @Override
    public void onRetryBudgetExhausted(String dependency) {
        counters(dependency).retryBudgetExhausted.increment();
    }

    /** Counts breaker rejections only: a full bulkhead or a short deadline has no meter in the contract. */
    @Override
    public void onRejected(String dependency, Reason reason) {
        if (reason == Reason.BREAKER_OPEN) {
            counters(dependency).circuitRejections.increment();
        }
    }

    @Override
    public void onShed(Priority priority) {
        shed.get(priority).increment();
    }

    /**
     * Logs the adaptive admission limit's moves: every move while it falls (the product is
     * refusing more), and rises at most once per {@link #LIMIT_LOG_EVERY_NANOS}, since it climbs a
     * step a window whenever it binds.
     */
    @Override
    public void onLimitChanged(int limit, long baselineNanos, long averageNanos, long lagNanos) {
        int before = lastLimit.getAndSet(limit);
        long now = System.nanoTime();
        long logged = limitLoggedAt.get();
        if (limit < before || now - logged >= LIMIT_LOG_EVERY_NANOS && limitLoggedAt.compareAndSet(logged, now)) {
            log.info("admission limit {} -> {} (own time per order {} ms, baseline {} ms, scheduling lag {} ms)",
                    before, limit, String.format(Locale.ROOT, "%.1f", averageNanos / 1e6),
                    String.format(Locale.ROOT, "%.1f", baselineNanos / 1e6),
                    String.format(Locale.ROOT, "%.1f", lagNanos / 1e6));
        }
    }

    @Override
    public void onCutShort(String dependency) {
        counters(dependency).cutShort.increment();
    }

    private Counters counters(String dependency) {
        // Every stack reports onCreated before any event; creating here only keeps a stray event harmless.
        return counters.computeIfAbsent(dependency, name -> new Counters(registry, name));
    }

    /** The counters of one dependency. */
    private static final class Counters {
        final Counter retries;
        final Counter retryBudgetExhausted;
        final Counter circuitRejections;
        final Counter cutShort;

        Counters(MeterRegistry registry, String dependency) {
            retries = counter(registry, dependency, RETRIES, "Retries made after a transient failure");
            retryBudgetExhausted = counter(registry, dependency, RETRY_BUDGET_EXHAUSTED,
                    "Retries refused because the retry budget was spent");
            circuitRejections = counter(registry, dependency, CIRCUIT_REJECTIONS,
                    "Calls rejected by an open circuit breaker or a full set of half-open trials");
            cutShort = counter(registry, dependency, CUT_SHORT,
                    "Calls failed only by attempts the deadline cut short (time spent in the product): no breaker verdict");
        }

        private static Counter counter(MeterRegistry registry, String dependency, String name, String description) {
            return Counter.builder(name).description(description).tag(DEPENDENCY, dependency).register(registry);
        }
    }
}
