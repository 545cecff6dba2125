package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.assertj.core.api.SoftAssertions;

/**
 * The invariants of DESIGN.md section 8 as seen from outside: the orders API, the sandbox
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
                    open.removeIf(id -> SETTLED.contains(product.status(id)));
                    return open.isEmpty();
                });
    }

    /** The statuses of {@code orders}, counted. */
    static Map<String, Long> statuses(TestProduct product, Collection<UUID> orders) {
        return orders.stream().collect(Collectors.groupingBy(product::status, Collectors.counting()));
    }

    /**
     * At most one captured charge per order (2); no reservation held for a CANCELLED or REJECTED
     * order, one reservation and one capture for a CONFIRMED one (3).
     */
    static void check(TestProduct product, Collection<UUID> orders) {
        SoftAssertions softly = new SoftAssertions();
        for (UUID id : orders) {
            String status = product.status(id);
            List<String> charges = statusesOf(product.charges(id));
            List<String> reservations = statusesOf(product.reservations(id));
            long captured = charges.stream().filter("CAPTURED"::equals).count();
            long reserved = reservations.stream().filter("RESERVED"::equals).count();
            String what = "order " + id + " (" + status + "), charges " + charges + ", reservations " + reservations;
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

    private static List<String> statusesOf(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false).map(n -> n.path("status").asText()).toList();
    }
}
