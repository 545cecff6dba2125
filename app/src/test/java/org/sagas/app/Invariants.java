package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.assertj.core.api.SoftAssertions;

/**
 * The invariants (docs/design.md, "Invariants") as seen from outside: the orders API, the sandbox
 * inventory's reservations and the sandbox payment provider's ledger.
 */
final class Invariants {
    private static final Set<String> SETTLED = Set.of("CONFIRMED", "CANCELLED");

    private Invariants() {}

    /** Every order answered 202 reaches CONFIRMED or CANCELLED (invariant 1). */
    static void awaitSettled(TestProduct product, Collection<UUID> orders, Duration within) {
        Set<UUID> open = new LinkedHashSet<>(orders);
        await("every accepted order CONFIRMED or CANCELLED").atMost(within).pollInterval(Duration.ofMillis(250))
                .until(() -> {
                    Map<UUID, String> now = statusesOf(product, open);
                    open.removeIf(id -> SETTLED.contains(now.get(id)));
                    return open.isEmpty();
                });
    }

    /** The statuses of {@code orders}, counted. */
    static Map<String, Long> statuses(TestProduct product, Collection<UUID> orders) {
        return orders.stream().collect(Collectors.groupingBy(product::status, Collectors.counting()));
    }

    /**
     * At most one captured charge per order (2); no reservation held for a CANCELLED or REJECTED
     * order, one reservation and one capture for a CONFIRMED one (3). Reads the sandboxes' ledgers
     * once, not once per order.
     */
    static void check(TestProduct product, Collection<UUID> orders) {
        Map<String, List<String>> charges = byOrder(product.get(product.payments("/charges")));
        Map<String, List<String>> reservations = byOrder(product.get(product.inventory("/reservations")));
        Map<UUID, String> statuses = statusesOf(product, orders);
        SoftAssertions softly = new SoftAssertions();
        for (UUID id : orders) {
            String status = statuses.get(id);
            List<String> charged = charges.getOrDefault(id.toString(), List.of());
            List<String> held = reservations.getOrDefault(id.toString(), List.of());
            long captured = charged.stream().filter("CAPTURED"::equals).count();
            long reserved = held.stream().filter("RESERVED"::equals).count();
            String what = "order " + id + " (" + status + "), charges " + charged + ", reservations " + held;
            softly.assertThat(captured).as("captured charges of " + what).isLessThanOrEqualTo(1);
            switch (status) {
                case "CONFIRMED" -> {
                    softly.assertThat(captured).as("captured charges of " + what).isEqualTo(1);
                    softly.assertThat(reserved).as("held reservations of " + what).isEqualTo(1);
                }
                case "CANCELLED", "REJECTED" -> {
                    softly.assertThat(captured).as("captured charges of " + what).isZero();
                    softly.assertThat(reserved).as("held reservations of " + what).isZero();
                }
                default -> softly.fail("order " + id + " is not settled: " + status);
            }
        }
        softly.assertAll();
    }

    /** The current status of each order: from the newest-first list, else one by one. */
    private static Map<UUID, String> statusesOf(TestProduct product, Collection<UUID> orders) {
        Map<UUID, String> statuses = new HashMap<>();
        for (JsonNode order : product.get(product.api("/orders?limit=1000"))) {
            statuses.put(UUID.fromString(order.get("orderId").asText()), order.get("status").asText());
        }
        statuses.keySet().retainAll(orders);
        for (UUID id : orders) {
            statuses.computeIfAbsent(id, product::status);
        }
        return statuses;
    }

    /** The {@code status} of each entry of a sandbox ledger, grouped by {@code orderId}. */
    private static Map<String, List<String>> byOrder(JsonNode ledger) {
        return StreamSupport.stream(ledger.spliterator(), false).collect(Collectors.groupingBy(
                n -> n.path("orderId").asText(), Collectors.mapping(n -> n.path("status").asText(),
                        Collectors.toList())));
    }

    /** The reasons in an order's history, oldest first. */
    static List<String> reasons(TestProduct product, UUID order) {
        return product.order(order).get("history").findValuesAsText("reason");
    }

    /** The stock a SKU still has, and holds for reservations. */
    static void assertStock(TestProduct product, String sku, int available, int reserved) {
        JsonNode stock = product.stockOf(sku);
        assertThat(stock.get("available").asInt()).as("available of " + sku).isEqualTo(available);
        assertThat(stock.get("reserved").asInt()).as("reserved of " + sku).isEqualTo(reserved);
    }

}
