package org.sagas.orchestrator.http;

import io.javalin.http.Context;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.LongSupplier;
import java.util.function.ToLongFunction;
import org.sagas.orchestrator.resilience.Permit;
import org.sagas.orchestrator.resilience.Priority;
import org.sagas.orchestrator.resilience.PriorityShedder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses work before doing any: a request whose deadline has passed, a priority class over its
 * in-flight limit, or a new order while the pending-confirmation cap is reached — each a
 * {@code 503} with {@code Retry-After}, nothing stored — and a client's new order while that
 * client alone has {@code clientPendingCap} orders pending confirmation ({@code 429}), so one
 * client cannot take the whole pending cap during an outage. The client's share is counted only
 * while some order is parked (waiting for a dependency). Runs once the request's body has arrived (see
 * {@link BodyGate}), so clients still sending hold no slot. Thread-safe.
 */
public final class AdmissionControl implements ApiServer.Admission {
    private static final Logger log = LoggerFactory.getLogger(AdmissionControl.class);

    private final PriorityShedder shedder;
    private final LongSupplier pendingCount;
    private final long pendingCap;
    private final LongSupplier parkedCount;
    private final ToLongFunction<Set<String>> pendingOf;
    private final long clientPendingCap;
    private final Clock clock;

    /**
     * @param pendingCount orders pending confirmation now (a gauge's last reading)
     * @param parkedCount orders parked on a dependency now (a gauge's last reading): a client's share
     *     is counted only while some are. Not {@code pendingCount}: every order is pending for the
     *     milliseconds its reservation runs, so under healthy load that is never zero (ADR 0019)
     * @param pendingOf orders pending confirmation for these customers, counted now
     */
    public AdmissionControl(PriorityShedder shedder, LongSupplier pendingCount, long pendingCap,
            LongSupplier parkedCount, ToLongFunction<Set<String>> pendingOf, long clientPendingCap, Clock clock) {
        this.shedder = shedder;
        this.pendingCount = pendingCount;
        this.pendingCap = pendingCap;
        this.parkedCount = parkedCount;
        this.pendingOf = pendingOf;
        this.clientPendingCap = clientPendingCap;
        this.clock = clock;
    }

    @Override
    public Ticket admit(Context ctx, Request request) {
        Priority priority = request.priority();
        long deadlineEpochMillis = request.deadlineEpochMillis();
        if (deadlineEpochMillis <= clock.millis()) {
            shedder.countShed(priority);
            refuse(ctx, "deadline-passed", "Deadline passed", "the request's X-Deadline has already passed", 1);
            return null;
        }
        Optional<Permit> permit = shedder.tryEnter(priority);
        if (permit.isEmpty()) {
            refuse(ctx, "overloaded", "Too many requests in flight",
                    priority.tagValue() + " priority requests are over their in-flight limit", 1);
            return null;
        }
        long pending = pendingCount.getAsLong();
        if (pending >= pendingCap) {
            permit.get().close();
            log.warn("order refused: {} orders pending confirmation, cap {}", pending, pendingCap);
            refuse(ctx, "pending-cap", "Too many orders pending confirmation",
                    "inventory is unavailable and the pending-confirmation cap (" + pendingCap + ") is reached", 5);
            return null;
        }
        if (clientPendingCap < pendingCap && parkedCount.getAsLong() > 0) {
            long mine = pendingOf.applyAsLong(request.customers());
            if (mine >= clientPendingCap) {
                permit.get().close();
                log.warn("order refused: client {} has {} orders pending confirmation, its cap is {}", request.client(),
                        mine, clientPendingCap);
                ctx.header("Retry-After", "5");
                Problems.send(ctx, 429, "client-pending-cap", "Too many of your orders pending confirmation",
                        "inventory is unavailable and this client already has " + mine
                                + " orders pending confirmation (cap " + clientPendingCap + ")", Map.of());
                return null;
            }
        }
        Permit held = permit.get();
        return held::close;
    }

    private static void refuse(Context ctx, String type, String title, String detail, int retryAfterSeconds) {
        ctx.header("Retry-After", Integer.toString(retryAfterSeconds));
        Problems.send(ctx, 503, type, title, detail, Map.of());
    }
}
