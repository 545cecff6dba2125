package org.sagas.orchestrator.lifecycle;

import java.time.Duration;

/**
 * A named part of a running process with a start and a bounded stop: a background job, a
 * consumer loop, a server. {@link Components} starts them in order and stops them in reverse.
 * Implementations are thread-safe.
 */
public interface Component {

    /** Short, stable name: shown in {@code /health} and in log lines and metrics. */
    String name();

    /** Starts the work; called once. */
    void start();

    /**
     * Stops the work, waiting at most {@code bound} for what is running to end.
     *
     * @return true when everything ended within the bound
     */
    boolean stop(Duration bound);

    /** How the component is doing now, for {@code /health}. */
    default ComponentHealth health() {
        return ComponentHealth.RUNNING;
    }

    /** An {@link AutoCloseable} started elsewhere (a server, a client), as a component. */
    static Component of(String name, AutoCloseable closeable) {
        return new Component() {
            @Override
            public String name() {
                return name;
            }

            @Override
            public void start() {}

            @Override
            public boolean stop(Duration bound) {
                try {
                    closeable.close();
                    return true;
                } catch (Exception e) {
                    throw new IllegalStateException(name + " did not stop cleanly: " + e, e);
                }
            }
        };
    }
}
