package org.sagas.orchestrator.lifecycle;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The components of one process, started in the order they are added (dependencies first) and
 * stopped in reverse, each stop bounded so one stuck part cannot hold the others; their health
 * is listed for {@code /health}. Start and close from one thread; {@link #health()} from any.
 */
public final class Components implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Components.class);

    /** A stop this slow is worth a line: it delays a restart or a rolling deploy. */
    private static final long SLOW_STOP_MS = 1_000;

    private final Duration stopBound;
    private final List<Component> started = new java.util.concurrent.CopyOnWriteArrayList<>();

    /** @param stopBound the longest each component's stop may wait for its work */
    public Components(Duration stopBound) {
        this.stopBound = stopBound;
    }

    /** Starts {@code component} now; it stops before everything started earlier. */
    public <C extends Component> C start(C component) {
        component.start();
        started.add(component);
        log.debug("started {}", component.name());
        return component;
    }

    /** Each started component's health, in start order. */
    public Map<String, ComponentHealth> health() {
        Map<String, ComponentHealth> map = new LinkedHashMap<>();
        for (Component c : started) {
            map.put(c.name(), c.health());
        }
        return map;
    }

    /** Stops every component, last started first; a failing or slow stop is logged, never skipped past. */
    @Override
    public void close() {
        List<Component> reverse = new ArrayList<>(started);
        java.util.Collections.reverse(reverse);
        for (Component c : reverse) {
            long began = System.nanoTime();
            try {
                if (!c.stop(stopBound)) {
                    log.warn("{} did not stop within {} ms", c.name(), stopBound.toMillis());
                }
                long took = (System.nanoTime() - began) / 1_000_000;
                if (took >= SLOW_STOP_MS) {
                    log.info("{} took {} ms to stop", c.name(), took);
                }
            } catch (RuntimeException e) {
                log.warn("stopping {} failed: {}", c.name(), e.toString());
            }
            started.remove(c);
        }
    }
}
