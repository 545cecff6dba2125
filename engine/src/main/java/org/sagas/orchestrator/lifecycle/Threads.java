package org.sagas.orchestrator.lifecycle;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The one way the product makes background threads: named after their component, daemon (a JVM
 * can always exit), numbered when there are several.
 */
public final class Threads {
    private Threads() {}

    /** Threads named {@code name} (one) or {@code name-1}, {@code name-2}, … (several). */
    public static ThreadFactory named(String name) {
        AtomicInteger count = new AtomicInteger();
        return r -> {
            int n = count.incrementAndGet();
            Thread t = new Thread(r, n == 1 ? name : name + "-" + n);
            t.setDaemon(true);
            return t;
        };
    }

    /**
     * One scheduler thread named {@code name}. Shut down, it drops the tasks still waiting for
     * their time (the JDK's default runs them first): a component that stops must not wait out its
     * next poll, which can be many seconds away when idle; a task already running is waited for.
     */
    public static ScheduledExecutorService scheduler(String name) {
        ScheduledThreadPoolExecutor scheduler = new ScheduledThreadPoolExecutor(1, named(name));
        scheduler.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        return scheduler;
    }

    /** A fixed pool of {@code threads} named {@code name-N}. */
    public static ExecutorService pool(String name, int threads) {
        return Executors.newFixedThreadPool(threads, named(name));
    }
}
