package org.sagas.app;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Watches {@code saga_circuit_state{dependency}} in {@code /metrics} every 100 ms while a game day
 * runs and remembers the highest state seen (0 closed, 1 half-open, 2 open), so a test can tell
 * whether the breaker ever opened. Thread-safe.
 */
final class CircuitWatch implements AutoCloseable {
    private final ScheduledExecutorService poller = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "circuit-watch");
        t.setDaemon(true);
        return t;
    });
    private final AtomicInteger highest = new AtomicInteger(-1);

    private CircuitWatch(TestProduct product, String dependency) {
        poller.scheduleWithFixedDelay(() -> {
            try {
                int state = (int) product.metrics().value("saga_circuit_state", "dependency", dependency);
                highest.accumulateAndGet(state, Math::max);
            } catch (RuntimeException | AssertionError e) {
                // A scrape that fails (the API restarting) simply is not a sample.
            }
        }, 0, 100, TimeUnit.MILLISECONDS);
    }

    static CircuitWatch inventory(TestProduct product) {
        return new CircuitWatch(product, "inventory");
    }

    /** The highest state seen so far; -1 before the first sample. */
    int highestState() {
        return highest.get();
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
