package org.sagas.sandbox;

import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * Injected waits that hold no thread: a single scheduler completes a future when the wait is
 * over, so hundreds of requests can wait at once. Closing fails every wait still pending with a
 * 503, so held responses never keep the server from stopping. Thread-safe.
 */
final class Delays implements AutoCloseable {
    private final ScheduledThreadPoolExecutor scheduler;
    private final Set<CompletableFuture<Void>> pending = ConcurrentHashMap.newKeySet();

    Delays(String name) {
        scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, name + "-delays");
            thread.setDaemon(true);
            return thread;
        });
        scheduler.setRemoveOnCancelPolicy(true);
    }

    /** A future completed {@code millis} from now (at once when {@code millis <= 0}). */
    CompletableFuture<Void> after(long millis) {
        if (millis <= 0) {
            return CompletableFuture.completedFuture(null);
        }
        CompletableFuture<Void> done = new CompletableFuture<>();
        pending.add(done);
        ScheduledFuture<?> timer;
        try {
            timer = scheduler.schedule(() -> done.complete(null), millis, TimeUnit.MILLISECONDS);
        } catch (RejectedExecutionException e) {
            pending.remove(done);
            throw Problem.unavailable("the sandbox is shutting down");
        }
        done.whenComplete((ignored, error) -> {
            timer.cancel(false);
            pending.remove(done);
        });
        return done;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        for (CompletableFuture<Void> wait : pending) {
            wait.completeExceptionally(Problem.unavailable("the sandbox is shutting down"));
        }
    }
}
