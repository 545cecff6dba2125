package org.sagas.orchestrator.ordering;

import java.time.Duration;
import java.time.Instant;
import java.util.Set;

/**
 * Which orders an operator looks for (docs/operations-admin.md). Every criterion is optional (null or
 * empty: any); those given must all hold. Immutable.
 *
 * @param statuses any of these order statuses
 * @param customerId the customer's orders
 * @param idempotencyKey the orders submitted under this {@code Idempotency-Key}, by any client (kept 24 h)
 * @param step the step a live saga is at (ended sagas have no current step to act on)
 * @param parkedOn sagas parked on this dependency
 * @param incident sagas marked with this incident cause, or {@link #ANY_INCIDENT} for any cause
 * @param stuckFor open orders whose status has not changed for at least this long
 * @param createdFrom created at or after
 * @param createdTo created before
 * @param definitionVersion orders whose saga runs this definition version (docs/design.md, "A second
 *     version of a saga"); null: any
 */
public record OrderFilter(Set<OrderStatus> statuses, String customerId, String idempotencyKey, String step,
        String parkedOn, String incident, Duration stuckFor, Instant createdFrom, Instant createdTo,
        Integer definitionVersion) {
    /** {@link #incident()} for a saga with any incident cause. */
    public static final String ANY_INCIDENT = "ANY";

    public OrderFilter {
        statuses = statuses == null ? Set.of() : Set.copyOf(statuses);
    }

    /** A filter on any definition version. */
    public OrderFilter(Set<OrderStatus> statuses, String customerId, String idempotencyKey, String step,
            String parkedOn, String incident, Duration stuckFor, Instant createdFrom, Instant createdTo) {
        this(statuses, customerId, idempotencyKey, step, parkedOn, incident, stuckFor, createdFrom, createdTo, null);
    }

    /** The same filter, also requiring the saga to run definition version {@code version}. */
    public OrderFilter onVersion(int version) {
        return new OrderFilter(statuses, customerId, idempotencyKey, step, parkedOn, incident, stuckFor, createdFrom,
                createdTo, version);
    }

    /** Every order. */
    public static OrderFilter all() {
        return new OrderFilter(Set.of(), null, null, null, null, null, null, null, null);
    }

    /** The same filter, also requiring creation before {@code before} (a batch's snapshot). */
    public OrderFilter createdBefore(Instant before) {
        Instant to = createdTo == null || before.isBefore(createdTo) ? before : createdTo;
        return new OrderFilter(statuses, customerId, idempotencyKey, step, parkedOn, incident, stuckFor, createdFrom,
                to, definitionVersion);
    }

    /** Sagas with an incident, of any cause. */
    public static OrderFilter incidents() {
        return new OrderFilter(Set.of(), null, null, null, null, ANY_INCIDENT, null, null, null);
    }

    /** True when a criterion is on the saga rather than on the order. */
    boolean onSaga() {
        return step != null || parkedOn != null || incident != null || definitionVersion != null;
    }
}
