package org.sagas.app;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.sagas.orchestrator.lifecycle.Threads;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Readiness computed in the background and served from memory: {@code GET /health/ready} costs
 * no connection from the pool and no broker round trip, however often it is called. A result
 * older than {@code staleAfter} (the checker itself is stuck) reads as not ready. A background
 * job: {@link #start()} then {@link #close()}. Thread-safe.
 */
final class ReadinessProbe implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReadinessProbe.class);

    private record Result(Map<String, Boolean> checks, long atNanos) {}

    private final Supplier<Map<String, Boolean>> check;
    private final Duration every;
    private final Duration staleAfter;
    private volatile Result last;
    private ScheduledExecutorService scheduler;

    ReadinessProbe(Supplier<Map<String, Boolean>> check, Duration every, Duration staleAfter) {
        this.check = check;
        this.every = every;
        this.staleAfter = staleAfter;
    }

    /** Checks once now (so the first answer is real), then every {@code every}. */
    ReadinessProbe start() {
        refresh();
        scheduler = Threads.scheduler("readiness");
        scheduler.scheduleWithFixedDelay(this::refresh, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
        return this;
    }

    /** The last result; every check false when it is older than {@code staleAfter}. */
    Map<String, Boolean> current() {
        Result result = last;
        if (System.nanoTime() - result.atNanos() <= staleAfter.toNanos()) {
            return result.checks();
        }
        Map<String, Boolean> stale = new LinkedHashMap<>();
        result.checks().keySet().forEach(name -> stale.put(name, false));
        return stale;
    }

    private void refresh() {
        try {
            last = new Result(java.util.Collections.unmodifiableMap(new LinkedHashMap<>(check.get())), System.nanoTime());
        } catch (RuntimeException e) {
            log.warn("readiness check failed; retried in {} ms: {}", every.toMillis(), e.toString());
        }
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
