package org.sagas.app.check;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import org.sagas.orchestrator.ordering.OrderStatus;

/**
 * What one pass of the checker read, in the order that keeps the pass consistent with a running
 * product: the participants' ledgers first, then the orders (an order row exists before its
 * reservation or charge does, docs/events.md), then the stock and the product's own tables. No
 * order of reads makes the stock consistent with orders reserving or ending meanwhile, so {@code
 * moving} names the SKUs that a reservation or an order moved on while the pass read them (the
 * reservations and the orders read again after the stock): those are not judged in that pass.
 */
record Snapshot(List<Ledgers.Charge> charges, List<Ledgers.Reservation> reservations,
        Map<UUID, ProductDatabase.Order> orders, Map<String, Ledgers.Stock> stock, Map<String, Long> confirmed,
        Set<String> moving,
        List<ProductDatabase.StuckRow> stuck, List<ProductDatabase.OpenIncident> incidents,
        List<ProductDatabase.OpenFinding> findings) {

    /** The status of the order {@code orderId} names (text, as the ledgers carry it), if it is one. */
    Optional<OrderStatus> status(String orderId) {
        return statusOf(orders, orderId);
    }

    /**
     * The SKUs of every reservation that moved between {@code before} and {@code after}: one that
     * appeared or changed status, or whose order changed status between {@code ordersBefore} and
     * {@code ordersAfter}.
     */
    static Set<String> moving(List<Ledgers.Reservation> before, List<Ledgers.Reservation> after,
            Map<UUID, ProductDatabase.Order> ordersBefore, Map<UUID, ProductDatabase.Order> ordersAfter) {
        Map<String, Ledgers.Reservation> then = new HashMap<>();
        before.forEach(r -> then.put(r.key(), r));
        Map<String, Ledgers.Reservation> now = new HashMap<>();
        after.forEach(r -> now.put(r.key(), r));
        Set<String> keys = new HashSet<>(then.keySet());
        keys.addAll(now.keySet());
        Set<String> skus = new TreeSet<>();
        for (String key : keys) {
            Ledgers.Reservation a = then.get(key);
            Ledgers.Reservation b = now.get(key);
            Ledgers.Reservation r = b != null ? b : a;
            boolean moved = a == null || b == null || !a.status().equals(b.status())
                    || !statusOf(ordersBefore, r.orderId()).equals(statusOf(ordersAfter, r.orderId()));
            if (moved) {
                r.lines().forEach(l -> skus.add(l.sku()));
            }
        }
        return skus;
    }

    private static Optional<OrderStatus> statusOf(Map<UUID, ProductDatabase.Order> orders, String orderId) {
        try {
            return Optional.ofNullable(orders.get(UUID.fromString(orderId))).map(ProductDatabase.Order::status);
        } catch (IllegalArgumentException notAnOrderId) {
            return Optional.empty();
        }
    }
}
