package org.sagas.orchestrator.resilience;

import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * A slot held in a {@link SemaphoreBulkhead} or a {@link PriorityShedder}; close it when the work
 * is done. Closing is idempotent: only the first {@link #close()} gives the slot back, so a permit
 * closed twice (a finally block plus a callback) cannot inflate the limit.
 *
 * <p>Thread-safe.
 */
public final class Permit implements AutoCloseable {

    private final Runnable release;
    private final AtomicBoolean released = new AtomicBoolean();

    Permit(Runnable release) {
        this.release = Objects.requireNonNull(release, "release");
    }

    /** A permit for nothing held: closing it does nothing. */
    public static Permit none() {
        return new Permit(() -> { });
    }

    /** Gives the slot back the first time it is called; later calls do nothing. Never throws. */
    @Override
    public void close() {
        if (released.compareAndSet(false, true)) {
            release.run();
        }
    }

    /** Returns true once the slot has been given back. */
    public boolean isReleased() {
        return released.get();
    }
}
