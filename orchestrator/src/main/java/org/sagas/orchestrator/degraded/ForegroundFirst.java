package org.sagas.orchestrator.degraded;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.sagas.orchestrator.http.ApiServer;

/**
 * Clients first: while {@code busyAt} or more order submissions are in flight in this process,
 * background work here (consuming payment commands and replies) waits before each record, up to
 * {@code maxWait} at a time, so that the cores go to the requests someone is waiting on. What
 * waits is asynchronous by design and sits safely in Kafka meanwhile; it catches up as soon as
 * the submissions thin out. A process without the API never waits. Thread-safe.
 */
public final class ForegroundFirst {
    private final AtomicInteger inFlight = new AtomicInteger();
    private final int busyAt;
    private final long maxWaitNanos;
    private final Object calmer = new Object();
    private final Counter waits;
    private final Timer waited;

    public ForegroundFirst(int busyAt, Duration maxWait, MeterRegistry registry) {
        if (busyAt < 1) {
            throw new IllegalArgumentException("busyAt must be at least 1, was " + busyAt);
        }
        this.busyAt = busyAt;
        this.maxWaitNanos = maxWait.toNanos();
        this.waits = Counter.builder("saga.background.yields")
                .description("Background records held back while clients' submissions were in flight")
                .register(registry);
        this.waited = Timer.builder("saga.background.yield")
                .description("Time background work waited for clients' submissions").register(registry);
    }

    /** Counts each admitted submission as in flight until its ticket closes. */
    public ApiServer.Admission around(ApiServer.Admission admission) {
        return (ctx, deadline) -> {
            ApiServer.Admission.Ticket ticket = admission.admit(ctx, deadline);
            if (ticket == null) {
                return null;
            }
            inFlight.incrementAndGet();
            return () -> {
                try {
                    ticket.close();
                } finally {
                    if (inFlight.decrementAndGet() < busyAt) {
                        synchronized (calmer) {
                            calmer.notifyAll();
                        }
                    }
                }
            };
        };
    }

    /** Waits while clients are busy, at most the configured time; returns at once otherwise. */
    public void yieldToClients() {
        if (maxWaitNanos == 0 || inFlight.get() < busyAt) {
            return;
        }
        waits.increment();
        long start = System.nanoTime();
        long end = start + maxWaitNanos;
        synchronized (calmer) {
            long left;
            while (inFlight.get() >= busyAt && (left = end - System.nanoTime()) > 0) {
                try {
                    TimeUnit.NANOSECONDS.timedWait(calmer, left);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        waited.record(System.nanoTime() - start, TimeUnit.NANOSECONDS);
    }

    /** Submissions in flight now. */
    public int inFlight() {
        return inFlight.get();
    }
}
