package org.sagas.app;

import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Collectors;
import org.sagas.orchestrator.messaging.Topics;

/** What the degraded-mode and game-day tests share: realistic settings, faults, notices. */
final class GameDay {
    /**
     * The product's own inventory timeout (300 ms per attempt) instead of the functional tests'
     * 3 s, and a breaker that stays open 2 s instead of 10 s to keep the tests short.
     */
    static final Map<String, String> REALISTIC = Map.of(
            "SAGA_INVENTORY_TIMEOUT_MS", "300",
            "SAGA_INVENTORY_BREAKER_OPEN_MS", "2000");

    /** Inventory refuses every reserve and release at once (503). */
    static final String INVENTORY_DOWN = "{\"latencyMs\":0,\"errorRate\":0.0,\"down\":true}";

    /**
     * How long a client may wait for an answer under the API's 500 ms budget: well inside a second
     * and a half even on two busy cores. Correctness, not speed.
     */
    static final Duration WITHIN_BUDGET = Duration.ofMillis(1500);

    /** Long enough for parked orders to be retried (5 s) and paid on a loaded machine. */
    static final Duration SETTLE = Duration.ofSeconds(60);

    private GameDay() {}

    /** {@link #REALISTIC} plus one more setting. */
    static Map<String, String> realisticWith(String name, String value) {
        Map<String, String> settings = new HashMap<>(REALISTIC);
        settings.put(name, value);
        return Map.copyOf(settings);
    }

    static String inventoryLatency(long millis) {
        return "{\"latencyMs\":" + millis + ",\"errorRate\":0.0,\"down\":false}";
    }

    /** The kinds of the customer notices published for each of {@code orders}. */
    static Map<UUID, List<String>> noticeKinds(String bootstrap, Collection<UUID> orders) {
        Map<String, List<TopicReader.Message>> found = TopicReader.messagesFor(bootstrap, Topics.NOTIFICATIONS,
                orders.stream().map(UUID::toString).toList(), 1, Duration.ofSeconds(30));
        return found.entrySet().stream().collect(Collectors.toMap(e -> UUID.fromString(e.getKey()),
                e -> e.getValue().stream().filter(m -> m.type().equals("CustomerNotice"))
                        .map(m -> m.payload().path("kind").asText()).toList()));
    }

    /** When the order's history first shows {@code status}. */
    static Instant firstAt(TestProduct product, UUID order, String status) {
        for (var entry : product.order(order).get("history")) {
            if (status.equals(entry.path("status").asText())) {
                var at = entry.path("at");
                return at.isNumber() ? Instant.ofEpochMilli((long) (at.asDouble() * 1000)) : Instant.parse(at.asText());
            }
        }
        throw new AssertionError("order " + order + " never was " + status);
    }

    /** The number of orders stored, whatever their status. */
    static long storedOrders(TestProduct product) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM orders")
                .mapTo(Long.class).one());
    }

    /** Orders pending confirmation now (earlier tests of a class may leave some, e.g. incidents). */
    static long pendingOrders(TestProduct product) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM orders WHERE status = 'PENDING_CONFIRMATION'").mapTo(Long.class).one());
    }

    /** Whether an idempotency key was stored. */
    static boolean keyStored(TestProduct product, String key) {
        return product.product().node().jdbi.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM idempotency_keys WHERE idem_key = :k").bind("k", key)
                .mapTo(Long.class).one()) > 0;
    }
}
