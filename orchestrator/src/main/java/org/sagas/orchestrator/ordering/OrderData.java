package org.sagas.orchestrator.ordering;

import java.util.List;
import java.util.UUID;

/** The orders saga's data, stored as JSON in the saga instance. */
public record OrderData(UUID orderId, String customerId, String currency, long totalCents, List<OrderLine> lines) {
    public OrderData {
        lines = List.copyOf(lines);
    }

    public String reserveKey() {
        return OrderKeys.reserve(orderId);
    }

    public String releaseKey() {
        return OrderKeys.release(orderId);
    }

    public String chargeKey() {
        return OrderKeys.charge(orderId);
    }
}
