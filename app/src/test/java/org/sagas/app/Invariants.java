package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Collection;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.stream.Collectors;
import org.sagas.app.check.CheckOptions;
import org.sagas.app.check.Checker;
import org.sagas.app.check.Invariant;
import org.sagas.app.check.Report;
import org.sagas.app.check.ReportOutput;

/**
 * The invariants (docs/design.md, "Invariants") as seen from outside, for the functional tests: waiting for orders to settle over
 * the orders API, and {@link #check} by the product's own checker ({@code ./sagas check}), so the
 * invariants are written in one place.
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
     * The invariants of {@code ./sagas check} on {@code orders} (and their SKUs' stock), judged by the
     * checker itself (org.sagas.app.check, docs/operations.md "Checking the invariants"): every order
     * terminal, at most one capture each, one for a CONFIRMED order and none left for a CANCELLED or
     * REJECTED one, no reservation held for those, and the stock of their SKUs adding up.
     */
    static void check(TestProduct product, Collection<UUID> orders) {
        Report report = Checker.run(CheckTargets.of(product.settings()), CheckOptions.defaults()
                .withSettle(Duration.ZERO).withOrders(Set.copyOf(orders)).withMaxIds(20).only(EnumSet.of(
                        Invariant.NOT_TERMINAL, Invariant.CHARGED_TWICE, Invariant.CONFIRMED_WITHOUT_CAPTURE,
                        Invariant.CAPTURE_NOT_REFUNDED, Invariant.STOCK_MISMATCH, Invariant.RESERVED_NOT_LIVE)));
        ByteArrayOutputStream table = new ByteArrayOutputStream();
        ReportOutput.table(report, new PrintStream(table, true, StandardCharsets.UTF_8));
        assertThat(report.failed()).as(table.toString(StandardCharsets.UTF_8)).isEmpty();
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
