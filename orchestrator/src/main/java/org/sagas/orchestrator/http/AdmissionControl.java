package org.sagas.orchestrator.http;

import io.javalin.http.Context;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.sagas.orchestrator.resilience.Permit;
import org.sagas.orchestrator.resilience.Priority;
import org.sagas.orchestrator.resilience.PriorityShedder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses work before doing any: a request whose deadline has passed, a priority class over its
 * in-flight limit, or a new order while the pending-confirmation cap is reached — each a
 * {@code 503} with {@code Retry-After}, nothing stored. Thread-safe.
 */
public final class AdmissionControl implements ApiServer.Admission {
    private static final Logger log = LoggerFactory.getLogger(AdmissionControl.class);

    private final PriorityShedder shedder;
    private final LongSupplier pendingCount;
    private final long pendingCap;
    private final Clock clock;

    public AdmissionControl(PriorityShedder shedder, LongSupplier pendingCount, long pendingCap, Clock clock) {
        this.shedder = shedder;
        this.pendingCount = pendingCount;
        this.pendingCap = pendingCap;
        this.clock = clock;
    }

    @Override
    public Ticket admit(Context ctx, long deadlineEpochMillis) {
        Priority priority;
        try {
            priority = Priority.parse(ctx.header("X-Priority"));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequest("X-Priority", "must be high, normal or low");
        }
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
        if (pendingCount.getAsLong() >= pendingCap) {
            permit.get().close();
            log.warn("order refused: {} orders pending confirmation, cap {}", pendingCount.getAsLong(), pendingCap);
            refuse(ctx, "pending-cap", "Too many orders pending confirmation",
                    "inventory is unavailable and the pending-confirmation cap (" + pendingCap + ") is reached", 5);
            return null;
        }
        Permit held = permit.get();
        return held::close;
    }

    private static void refuse(Context ctx, String type, String title, String detail, int retryAfterSeconds) {
        ctx.header("Retry-After", Integer.toString(retryAfterSeconds));
        Problems.send(ctx, 503, type, title, detail, Map.of());
    }
}
