package org.sagas.orchestrator.http;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.time.Clock;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import org.sagas.orchestrator.resilience.Permit;
import org.sagas.orchestrator.resilience.Priority;
import org.sagas.orchestrator.resilience.PriorityShedder;
import org.sagas.orchestrator.resilience.RemoteTime;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses work before doing any: a request whose deadline has passed, a priority class over its
 * in-flight limit for longer than its queue budget, or a new order while the pending-confirmation
 * cap is reached — each a {@code 503} with {@code Retry-After}, nothing stored — and a client's new order while that
 * client alone has {@code clientPendingCap} orders pending confirmation, or its key's own cap
 * ({@code 429}), so one
 * client cannot take the whole pending cap during an outage. The client's share is counted only
 * while some order is parked (waiting for a dependency). Runs once the request's body has arrived (see
 * {@link BodyGate}), so clients still sending hold no slot. Thread-safe.
 */
public final class AdmissionControl implements ApiServer.Admission {
    private static final Logger log = LoggerFactory.getLogger(AdmissionControl.class);
    private static final double SERVICE_WEIGHT = 0.05;
    private static final Duration OVERFLOWING = Duration.ofMillis(200);
    /** A request that waited this long before admission let it in met the product queueing (the lag limit). */
    private static final long QUEUEING_NANOS = Duration.ofMillis(10).toNanos();
    /** At most one line a second for the refusals that come in floods (over the limit, deadline passed). */
    private static final long REFUSAL_LOG_NANOS = Duration.ofSeconds(1).toNanos();
    private final AtomicLong unloggedRefusals = new AtomicLong();
    private final AtomicLong lastRefusalLog = new AtomicLong(System.nanoTime() - REFUSAL_LOG_NANOS);

    private final PriorityShedder shedder;
    private final LongSupplier pendingCount;
    private final long pendingCap;
    private final LongSupplier parkedCount;
    private final ToLongFunction<Set<String>> pendingOf;
    private final long clientPendingCap;
    private final Clock clock;
    private final long queueMaxNanos;
    /** Admitted requests' whole time in the product, a moving average (nanoseconds). */
    private volatile double serviceNanos;
    private final Timer queued;
    private final Counter[] refused;
    private final Preflight preflight;

    /**
     * What an admitted submission holds before any of its work, so that what the product cannot
     * serve at speed is refused here, nothing stored, rather than found in its inventory call and
     * parked as if inventory had failed (docs/decisions/0021): a place in the participant's
     * bulkhead and time enough for a fair attempt ({@code ResilientDependency.holdPlace}).
     */
    @FunctionalInterface
    public interface Preflight {
        /** Nothing to hold: every submission goes on to its call. */
        Preflight NONE = (deadline, congested, priority, refusal) -> Optional.of(Permit.none());

        /**
         * @param congested whether the product queues on its own resources now ({@link PriorityShedder#congested})
         * @param priority the submission's: a high one may be held to less (ADR 0021)
         * @param refusal told why, when the answer is empty
         * @return what to release when the request ends, or empty to refuse it as overloaded
         */
        Optional<Permit> hold(long deadlineEpochMillis, boolean congested, Priority priority,
                java.util.function.Consumer<String> refusal);
    }

    /**
     * @param pendingCount orders pending confirmation now (a gauge's last reading)
     * @param parkedCount orders parked on a dependency now (a gauge's last reading): a client's share
     *     is counted only while some are. Not {@code pendingCount}: every order is pending for the
     *     milliseconds its reservation runs, so under healthy load that is never zero (ADR 0019)
     * @param pendingOf orders pending confirmation for these customers, counted now
     * @param queueMax the longest a request waits for an in-flight slot; less when its deadline
     *     leaves less than that beyond the time an admitted request usually takes
     */
    public AdmissionControl(PriorityShedder shedder, LongSupplier pendingCount, long pendingCap,
            LongSupplier parkedCount, ToLongFunction<Set<String>> pendingOf, long clientPendingCap, Clock clock,
            Duration queueMax, MeterRegistry registry) {
        this(shedder, pendingCount, pendingCap, parkedCount, pendingOf, clientPendingCap, clock, queueMax, registry,
                Preflight.NONE);
    }

    /** @param preflight what each admitted submission holds before its work ({@link Preflight}) */
    public AdmissionControl(PriorityShedder shedder, LongSupplier pendingCount, long pendingCap,
            LongSupplier parkedCount, ToLongFunction<Set<String>> pendingOf, long clientPendingCap, Clock clock,
            Duration queueMax, MeterRegistry registry, Preflight preflight) {
        this.preflight = java.util.Objects.requireNonNull(preflight, "preflight");
        this.queueMaxNanos = queueMax.toNanos();
        this.queued = Timer.builder("saga.admission.queue")
                .description("Time order submissions waited for an in-flight slot, admitted or not")
                .register(registry);
        this.refused = new Counter[Refusal.values().length];
        for (Refusal r : Refusal.values()) {
            refused[r.ordinal()] = Counter.builder("saga.admission.refused").tag("reason", r.type)
                    .description("Order submissions refused by admission, by reason").register(registry);
        }
        for (Priority p : Priority.values()) {
            Gauge.builder("saga.admission.limit", shedder, s -> s.limit(p)).tag("priority", p.tagValue())
                    .description("Order submissions admitted in flight at most, found at run time")
                    .register(registry);
        }
        Gauge.builder("saga.admission.in.flight", shedder, PriorityShedder::inFlight)
                .description("Order submissions admitted and not yet answered").register(registry);
        Gauge.builder("saga.admission.using.product", shedder, PriorityShedder::usingProduct)
                .description("Admitted order submissions not waiting on a participant now").register(registry);
        Gauge.builder("saga.admission.waiting", shedder, PriorityShedder::waiting)
                .description("Order submissions waiting for an in-flight slot").register(registry);
        this.shedder = shedder;
        this.pendingCount = pendingCount;
        this.pendingCap = pendingCap;
        this.parkedCount = parkedCount;
        this.pendingOf = pendingOf;
        this.clientPendingCap = clientPendingCap;
        this.clock = clock;
    }

    @Override
    public Decision decide(Request request) {
        Priority priority = request.priority();
        long deadlineEpochMillis = request.deadlineEpochMillis();
        long remainingNanos = (deadlineEpochMillis - clock.millis()) * 1_000_000L;
        if (remainingNanos <= 0) {
            shedder.countShed(priority);
            logFlooding("the request's deadline had passed on arrival", priority);
            return refuse(Refusal.DEADLINE_PASSED, "Deadline passed", "the request's deadline has already passed", 1);
        }
        // Wait only as long as leaves the request the time an admitted one usually takes.
        long waitNanos = Math.max(0, Math.min(queueMaxNanos, remainingNanos - (long) serviceNanos));
        long arrived = System.nanoTime();
        Optional<Permit> permit = shedder.tryEnter(priority, Duration.ofNanos(waitNanos));
        long admitted = System.nanoTime();
        queued.record(admitted - arrived, TimeUnit.NANOSECONDS);
        if (permit.isEmpty()) {
            logFlooding("no in-flight slot within " + TimeUnit.NANOSECONDS.toMillis(admitted - arrived) + " ms, limit "
                    + shedder.limit(priority), priority);
            return refuse(Refusal.OVERLOADED, "Too many requests in flight", priority.tagValue()
                    + " priority requests are over the in-flight limit the product can serve at speed ("
                    + shedder.limit(priority) + ")", retryAfterSeconds());
        }
        long pending = pendingCount.getAsLong();
        if (pending >= pendingCap) {
            permit.get().close();
            log.warn("order refused: {} orders pending confirmation, cap {}", pending, pendingCap);
            return refuse(Refusal.PENDING_CAP, "Too many orders pending confirmation",
                    "inventory is unavailable and the pending-confirmation cap (" + pendingCap + ") is reached", 5);
        }
        long clientCap = request.pendingCap().isPresent() ? request.pendingCap().getAsInt() : clientPendingCap;
        if (clientCap < pendingCap && parkedCount.getAsLong() > 0) {
            long mine = pendingOf.applyAsLong(request.customers());
            if (mine >= clientCap) {
                permit.get().close();
                log.warn("order refused: client {} has {} orders pending confirmation, its cap is {}", request.client(),
                        mine, clientCap);
                return new Refused(429, "client-pending-cap", "Too many of your orders pending confirmation",
                        "inventory is unavailable and this client already has " + mine
                                + " orders pending confirmation (cap " + clientCap + ")", 5);
            }
        }
        String[] why = new String[1];
        // Queueing: judged so by the limit's last window, or this very request waited for the product
        // (in the server before admission, or for a slot) longer than a core's run queue may hold it.
        boolean queueing = shedder.congested() || admitted - request.arrivedNanos() > QUEUEING_NANOS;
        Optional<Permit> place = preflight.hold(deadlineEpochMillis, queueing, priority, cause -> why[0] = cause);
        if (place.isEmpty()) {
            permit.get().close();
            shedder.countShed(priority);
            log.warn("order refused as overloaded before any work: {}", why[0]);
            return refuse(Refusal.OVERLOADED, "Too many requests in flight", "the product cannot give this order a"
                    + " fair call to inventory now (" + why[0] + "); nothing was stored", retryAfterSeconds());
        }
        Permit held = permit.get();
        Permit placed = place.get();
        int using = shedder.usingProduct();
        long remoteBefore = RemoteTime.spentNanos();
        RemoteTime.Watch watched = RemoteTime.watch(shedder);
        return new Admitted(() -> {
            long end = System.nanoTime();
            watched.close();
            placed.close();
            held.close();
            long served = end - admitted;
            double before = serviceNanos;
            serviceNanos = before == 0 ? served : before + SERVICE_WEIGHT * (served - before);
            // The product's own time: served, plus queued in the server before reaching admission (the
            // product's too), less participants' time, which is degraded mode's business; not the wait
            // for a slot, which the limit itself causes (ADR 0021).
            long total = served + Math.max(0, arrived - request.arrivedNanos());
            shedder.sample(total - (RemoteTime.spentNanos() - remoteBefore), using, end);
        });
    }


    /**
     * Saturated: as many requests of {@code priority} wait for a slot as its limit lets use the
     * product at once, and waiting requests were refused in the last {@code OVERFLOWING} (the queue
     * overflows; a burst it can absorb is let in), so a newcomer would wait its whole queue budget
     * and be refused anyway. The refusal that follows is counted here, as any other.
     */
    @Override
    public OptionalInt saturated(Priority priority) {
        // Asked of every submission: the volatile read first, the waiters' count (a lock) only under overload.
        if (!shedder.queueOverflowedWithin(OVERFLOWING) || shedder.waiting() < Math.max(2, shedder.limit(priority))) {
            return OptionalInt.empty();
        }
        shedder.countShed(priority);
        refused[Refusal.OVERLOADED.ordinal()].increment();
        logFlooding("the queue for an in-flight slot is full, limit " + shedder.limit(priority), priority);
        return OptionalInt.of(retryAfterSeconds());
    }

    /**
     * Logs a refusal of the kinds that come by the thousand under overload: the first at once, then
     * one line a second at most, counting those not logged since (their metric,
     * {@code saga_admission_refused_total}, counts each). Nothing was stored, so there is no order id.
     */
    private void logFlooding(String cause, Priority priority) {
        unloggedRefusals.incrementAndGet();
        long now = System.nanoTime();
        long last = lastRefusalLog.get();
        if (now - last >= REFUSAL_LOG_NANOS && lastRefusalLog.compareAndSet(last, now)) {
            log.warn("order submission refused 503, nothing stored ({} priority): {}; {} refused so since the last"
                    + " such line", priority.tagValue(), cause, unloggedRefusals.getAndSet(0));
        }
    }

    /**
     * Seconds until the requests ahead (in flight and waiting) have drained at the measured pace,
     * at least one: a client that honours it comes back when a slot is likely free.
     */
    private int retryAfterSeconds() {
        double ahead = shedder.inFlight() + shedder.waiting();
        double drainNanos = ahead * serviceNanos / Math.max(1, shedder.limit(Priority.HIGH));
        return (int) Math.max(1, Math.min(30, Math.ceil(drainNanos / 1e9)));
    }

    private Refused refuse(Refusal reason, String title, String detail, int retryAfterSeconds) {
        refused[reason.ordinal()].increment();
        return new Refused(503, reason.type, title, detail, retryAfterSeconds);
    }

    /** Why admission refused, and the problem type the client reads. */
    private enum Refusal {
        DEADLINE_PASSED("deadline-passed"),
        OVERLOADED("overloaded"),
        PENDING_CAP("pending-cap");

        final String type;

        Refusal(String type) {
            this.type = type;
        }
    }
}
