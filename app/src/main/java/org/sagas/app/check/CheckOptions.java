package org.sagas.app.check;

import java.time.Duration;
import java.util.EnumSet;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;

/**
 * How to check.
 *
 * @param settle how long to wait for accepted orders to become terminal before judging them
 * @param outboxAge an outbox row unpublished longer than this is stuck
 * @param maxIds how many offending ids a verdict names (the count is always whole)
 * @param orders the orders to judge (their SKUs for the stock); empty: every order
 * @param invariants the invariants to judge
 */
public record CheckOptions(Duration settle, Duration outboxAge, int maxIds, Set<UUID> orders,
        Set<Invariant> invariants) {
    public static final Duration DEFAULT_SETTLE = Duration.ofSeconds(60);
    /** As the alert on outbox lag (ops/prometheus/alerts.yml): older than a minute. */
    public static final Duration DEFAULT_OUTBOX_AGE = Duration.ofSeconds(60);
    public static final int DEFAULT_MAX_IDS = 10;

    public CheckOptions {
        Objects.requireNonNull(settle, "settle");
        Objects.requireNonNull(outboxAge, "outboxAge");
        if (settle.isNegative() || outboxAge.isNegative()) {
            throw new IllegalArgumentException("settle and outbox age must not be negative");
        }
        if (maxIds < 1) {
            throw new IllegalArgumentException("maxIds must be at least 1, is " + maxIds);
        }
        orders = Set.copyOf(orders);
        if (invariants.isEmpty()) {
            throw new IllegalArgumentException("no invariant to judge");
        }
        invariants = Set.copyOf(invariants);
    }

    /** Every invariant, every order, the default times. */
    public static CheckOptions defaults() {
        return new CheckOptions(DEFAULT_SETTLE, DEFAULT_OUTBOX_AGE, DEFAULT_MAX_IDS, Set.of(),
                EnumSet.allOf(Invariant.class));
    }

    public CheckOptions withSettle(Duration value) {
        return new CheckOptions(value, outboxAge, maxIds, orders, invariants);
    }

    public CheckOptions withOutboxAge(Duration value) {
        return new CheckOptions(settle, value, maxIds, orders, invariants);
    }

    public CheckOptions withMaxIds(int value) {
        return new CheckOptions(settle, outboxAge, value, orders, invariants);
    }

    /** Judges only {@code value} (their events, outbox rows, incidents and findings; their SKUs' stock). */
    public CheckOptions withOrders(Set<UUID> value) {
        return new CheckOptions(settle, outboxAge, maxIds, value, invariants);
    }

    public CheckOptions only(Set<Invariant> value) {
        return new CheckOptions(settle, outboxAge, maxIds, orders, value);
    }

    boolean judges(Invariant invariant) {
        return invariants.contains(invariant);
    }

    /** Whether {@code orderId} (text, as ledgers and topics carry it) is in scope. */
    boolean inScope(String orderId) {
        if (orders.isEmpty()) {
            return true;
        }
        try {
            return orders.contains(UUID.fromString(orderId));
        } catch (IllegalArgumentException notAnOrderId) {
            return false;
        }
    }
}
