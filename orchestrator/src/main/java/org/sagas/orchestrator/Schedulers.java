package org.sagas.orchestrator;

import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;

/** Background schedulers of the product: one named daemon thread each, so a JVM can always exit. */
public final class Schedulers {
    private Schedulers() {}

    public static ScheduledExecutorService single(String threadName) {
        return Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }
}
