package org.sagas.orchestrator.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import com.sun.management.OperatingSystemMXBean;
import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.sagas.orchestrator.resilience.Priority;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Clients first: while {@code busyAt} or more order submissions are in flight in this process
 * and the machine's cores are busy, background work here (consuming payment commands and replies)
 * waits before each batch of records so that the cores go to the requests someone is waiting on.
 * What waits is asynchronous by design and sits safely in Kafka meanwhile, but not for ever: a
 * record is held back until it is {@code maxWait} old at most, counted from when it was written,
 * so under sustained load the background runs that far behind and no further — confirmations are
 * delayed, never starved (ADR 0005). With cores to spare nothing waits, however many submissions
 * are in flight; a process without the API never waits. Thread-safe.
 */
public final class ForegroundFirst {
    private static final long READ_EVERY_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long LOG_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);

    private static final Logger log = LoggerFactory.getLogger(ForegroundFirst.class);

    private final AtomicInteger inFlight = new AtomicInteger();
    private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);
    private final int busyAt;
    private final long maxWaitMillis;
    private final Object calmer = new Object();
    private final BooleanSupplier coresBusy;
    private final Counter waits;
    private final Timer waited;

    /**
     * @param coresBusy whether the machine's cores are busy now (see {@link #cpuAbove(double)})
     */
    public ForegroundFirst(int busyAt, Duration maxWait, BooleanSupplier coresBusy, MeterRegistry registry) {
        if (busyAt < 1) {
            throw new IllegalArgumentException("busyAt must be at least 1, was " + busyAt);
        }
        this.busyAt = busyAt;
        this.maxWaitMillis = maxWait.toMillis();
        this.coresBusy = coresBusy;
        this.waits = Counter.builder("saga.background.yields")
                .description("Background records held back while clients' submissions were in flight")
                .register(registry);
        this.waited = Timer.builder("saga.background.yield")
                .description("Time background work waited for clients' submissions").register(registry);
    }

    /** Counts each admitted submission as in flight until its ticket closes. */
    public ApiServer.Admission around(ApiServer.Admission admission) {
        return new ApiServer.Admission() {
            @Override
            public Decision decide(Request request) {
                return counted(admission, request);
            }

            @Override
            public OptionalInt saturated(Priority priority) {
                return admission.saturated(priority);
            }
        };
    }

    private ApiServer.Admission.Decision counted(ApiServer.Admission admission, ApiServer.Admission.Request request) {
        ApiServer.Admission.Decision decision = admission.decide(request);
        if (!(decision instanceof ApiServer.Admission.Admitted admitted)) {
            return decision;
        }
        ApiServer.Admission.Ticket ticket = admitted.ticket();
        inFlight.incrementAndGet();
        return new ApiServer.Admission.Admitted(() -> {
            try {
                ticket.close();
            } finally {
                if (inFlight.decrementAndGet() < busyAt) {
                    synchronized (calmer) {
                        calmer.notifyAll();
                    }
                }
            }
        });
    }

    /**
     * Waits while clients are busy, until the batch's oldest record is {@code maxWait} old at
     * most; returns at once otherwise.
     *
     * @param oldestEpochMillis when the batch's oldest record was written
     */
    public void yieldToClients(long oldestEpochMillis) {
        if (maxWaitMillis == 0 || inFlight.get() < busyAt) {
            return;
        }
        long leftMillis = oldestEpochMillis + maxWaitMillis - System.currentTimeMillis();
        if (leftMillis <= 0 || !coresBusy.getAsBoolean()) {
            return;
        }
        waits.increment();
        long start = System.nanoTime();
        long logged = lastLogged.get();
        // Visible, but one line per LOG_EVERY at most: the count hovers around the threshold under load.
        if (start - logged >= LOG_EVERY_NANOS && lastLogged.compareAndSet(logged, start)) {
            log.info("clients first: {} submissions in flight and the cores busy; background consumers hold records"
                    + " back until they are {} ms old at most (saga_background_yields_total)", inFlight.get(),
                    maxWaitMillis);
        }
        // At most the whole wait, even for a record stamped ahead of this clock.
        long end = start + TimeUnit.MILLISECONDS.toNanos(Math.min(leftMillis, maxWaitMillis));
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

    /**
     * True while the whole machine's CPU use is at least {@code fraction} (0 to 1), as the
     * operating system last reported it; read at most every 100 ms.
     */
    public static BooleanSupplier cpuAbove(double fraction) {
        OperatingSystemMXBean os = (OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        AtomicLong readAt = new AtomicLong(System.nanoTime() - READ_EVERY_NANOS);
        AtomicReference<Double> last = new AtomicReference<>(0.0);
        return () -> {
            long now = System.nanoTime();
            long previous = readAt.get();
            if (now - previous >= READ_EVERY_NANOS && readAt.compareAndSet(previous, now)) {
                last.set(os.getCpuLoad());
            }
            return last.get() >= fraction;
        };
    }

    /** Submissions in flight now. */
    public int inFlight() {
        return inFlight.get();
    }
}
