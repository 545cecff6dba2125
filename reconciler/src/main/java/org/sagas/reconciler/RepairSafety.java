package org.sagas.reconciler;

import java.util.Optional;
import java.util.UUID;
import org.sagas.orchestrator.ordering.OrderKeys;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * The last look before money or stock moves: the topology decided from events, this asks the
 * orders table (the source of truth) whether the repair is still right. A refund or a release is
 * safe only when the order does not exist or ended without being served — or, for a refund, when
 * the charge is not the one its confirmed order was paid with. Pure; thread-safe.
 */
final class RepairSafety {
    private RepairSafety() {}

    /** Why the repair must not run, or empty when it may. */
    static Optional<String> refuses(Finding f, Optional<OrderStatus> order) {
        if (f.action() == RepairAction.NONE) {
            return Optional.of("nothing to repair automatically");
        }
        if (order.isEmpty()) {
            return Optional.empty();
        }
        OrderStatus status = order.get();
        if (status == OrderStatus.CANCELLED || status == OrderStatus.REJECTED) {
            return Optional.empty();
        }
        if (f.action() == RepairAction.REFUND && status == OrderStatus.CONFIRMED
                && !f.subject().equals(ownChargeKey(f.orderId()))) {
            return Optional.empty(); // a second capture: the order was paid with its own charge key
        }
        return Optional.of("the order is " + status + " now");
    }

    private static String ownChargeKey(String orderId) {
        try {
            return OrderKeys.charge(UUID.fromString(orderId));
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
