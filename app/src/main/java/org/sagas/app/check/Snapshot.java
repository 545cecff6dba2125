package org.sagas.app.check;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * What one pass of the checker read, in the order that keeps the pass consistent with a running
 * product: the participants' ledgers first, then the orders (an order row exists before its
 * reservation or charge does, docs/events.md), then the stock and the product's own tables.
 */
record Snapshot(List<Ledgers.Charge> charges, List<Ledgers.Reservation> reservations,
        Map<UUID, ProductDatabase.Order> orders, Map<String, Ledgers.Stock> stock, Map<String, Long> confirmed,
        List<ProductDatabase.StuckRow> stuck, List<ProductDatabase.OpenIncident> incidents,
        List<ProductDatabase.OpenFinding> findings) {

    /** The status of the order {@code orderId} names (text, as the ledgers carry it), if it is one. */
    Optional<OrderStatus> status(String orderId) {
        try {
            ProductDatabase.Order o = orders.get(UUID.fromString(orderId));
            return o == null ? Optional.empty() : Optional.of(o.status());
        } catch (IllegalArgumentException notAnOrderId) {
            return Optional.empty();
        }
    }
}
