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
        scheduler.scheduleWithFixedDelay(this::refreshWhileRead, every.toMillis(), every.toMillis(),
                TimeUnit.MILLISECONDS);
        return this;
    }

    /** The last result; every check false when it is older than {@code staleAfter}. */
    Map<String, Boolean> current() {
        lastReadNanos = System.nanoTime();
        Result result = last;
        if (System.nanoTime() - result.atNanos() <= staleAfter.toNanos()) {
            return result.checks();
        }
        Map<String, Boolean> stale = new LinkedHashMap<>();
        result.checks().keySet().forEach(name -> stale.put(name, false));
        return stale;
    }

    /**
     * Unread for this long (no load balancer, no client asking), the probe checks every
     * {@link #UNREAD_EVERY} only, still well inside {@code staleAfter}: each check is a database
     * round trip and a broker request (docs/benchmarks.md, "Idle").
     */
    static final Duration UNREAD_AFTER = Duration.ofSeconds(10);
    static final Duration UNREAD_EVERY = Duration.ofSeconds(5);
    private volatile long lastReadNanos = System.nanoTime();

    private void refreshWhileRead() {
        long now = System.nanoTime();
        Result result = last;
        if (result != null && now - lastReadNanos > UNREAD_AFTER.toNanos() && now - result.atNanos() < Math.min(UNREAD_EVERY.toNanos(),
                staleAfter.toNanos() / 2)) {
            return;
        }
        refresh();
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
