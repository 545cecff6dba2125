package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.sagas.app.GameDay.SETTLE;
import static org.sagas.app.Submissions.sku;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.app.Submissions.Answer;
import org.sagas.testkit.RealInfrastructure;

/**
 * The protections around degraded mode on the real product (docs/design.md, "Resilience parameters"): a "no"
 * from inventory is an answer, not a failure, so it never trips the breaker; low-priority work is
 * shed first when too much is in flight; every metric the runbook relies on is exposed.
 */
@RealInfrastructure
@RunsAlone
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ProtectionIT extends GameDayLifecycle {
    /**
     * A hair-trigger breaker (50% failures over 10 calls); attempts allowed 8 s and a bulkhead with
     * room for every call, so slow calls wait in flight instead of being parked; the test's clients
     * allow 5 to 10 s. Timeouts are generous so that only answers, never this machine's hiccups,
     * reach the breaker.
     */
    private static final Map<String, String> SETTINGS = Map.of(
            "SAGA_INVENTORY_BREAKER_MIN_CALLS", "10",
            "SAGA_INVENTORY_TIMEOUT_MS", "8000",
            "SAGA_INVENTORY_BULKHEAD_PERMITS", "100");

    @Override
    Map<String, String> settings() {
        return SETTINGS;
    }

    /*
     * First: its premise is an inventory answering in its usual time, and the product remembers how
     * long inventory took (docs/decisions/0036). After the shedding test's 3 s answers, a burst of
     * orders with 5 s deadlines is rightly refused while the product is congested: three of those
     * answers do not fit in 5 s.
     */
    @Test
    @Order(1)
    void shouldKeepTheInventoryBreakerClosedWhenMostOrdersAreOutOfStock() {
        // Given a hair-trigger breaker, one SKU with stock for 80 orders and one sold out
        String inStock = sku();
        String soldOut = sku();
        product.stock(inStock, 80);
        product.stock(soldOut, 0);
        Metrics before = product.metrics();
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 200; i++) {
            bodies.add(TestProduct.order("c-answers", isInStock(i) ? inStock : soldOut, 1, 100));
        }

        // When 200 orders arrive from 16 clients at once, 60% of them for the sold-out SKU
        List<Answer> answers;
        int highestState;
        try (CircuitWatch watch = CircuitWatch.inventory(product)) {
            answers = Submissions.concurrently(16, bodies, product::submit);
            highestState = watch.highestState();
        }

        // Then every in-stock order holds its stock and every other is rejected with 422 ...
        for (int i = 0; i < answers.size(); i++) {
            Answer a = answers.get(i);
            if (isInStock(i)) {
                assertThat(a.status()).as("%s", a).isEqualTo(202);
                assertThat(a.orderStatus()).as("%s", a).isEqualTo("AWAITING_PAYMENT");
            } else {
                assertThat(a.status()).as("%s", a).isEqualTo(422);
                assertThat(product.status(a.orderId())).isEqualTo("REJECTED");
            }
        }
        // ... because the breaker never left closed: out of stock is an answer, not a failure
        assertThat(highestState).as("highest saga_circuit_state seen").isZero();
        Metrics after = product.metrics();
        assertThat(after.value("saga_circuit_state", "dependency", "inventory")).isZero();
        assertThat(after.value("saga_circuit_rejections_total", "dependency", "inventory"))
                .isEqualTo(before.value("saga_circuit_rejections_total", "dependency", "inventory"));
        assertThat(after.value("saga_fallback_total", "operation", "reserve"))
                .isEqualTo(before.value("saga_fallback_total", "operation", "reserve"));
        List<UUID> ids = Submissions.ids(answers);
        List<UUID> accepted = new ArrayList<>();
        for (int i = 0; i < ids.size(); i++) {
            if (isInStock(i)) {
                accepted.add(ids.get(i));
            }
        }
        Invariants.awaitSettled(product, accepted, SETTLE);
        assertThat(Invariants.statuses(product, accepted)).containsExactly(Map.entry("CONFIRMED", 80L));
        Invariants.check(product, ids);
        Invariants.assertStock(product, inStock, 0, 80);
        Invariants.assertStock(product, soldOut, 0, 0);
    }

    @Test
    void shouldShedLowPriorityRequestsBeyondThirtyInFlightWhileHighOnesAreStillAdmitted() throws Exception {
        // Given an inventory taking 3 s, and a SKU per order so the sandbox's reservations do not
        // queue on one stock row
        List<String> skus = new ArrayList<>();
        for (int i = 0; i < 45; i++) {
            skus.add(sku());
            product.stock(skus.get(i), 1);
        }
        product.inventoryFaults(GameDay.inventoryLatency(3000));
        Metrics before = product.metrics();
        ExecutorService clients = Executors.newFixedThreadPool(45);
        try {
            List<Future<Answer>> held = new ArrayList<>();
            for (int i = 0; i < 40; i++) {
                String sku = skus.get(i);
                held.add(clients.submit(() -> Submissions.one((key, body) -> product.submit(key, body,
                        "X-Deadline", inTenSeconds()), TestProduct.order("c-held", sku, 1, 100))));
            }
            await("more than 30 requests in flight").atMost(Duration.ofSeconds(10)).until(
                    () -> product.metrics().value("saga_bulkhead_in_use", "dependency", "inventory") >= 35);

            // When low- and high-priority requests arrive while those are in flight
            List<Answer> low = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String sku = skus.get(40 + i);
                low.add(Submissions.one((key, body) -> product.submit(key, body, "X-Priority", "low"),
                        TestProduct.order("c-low", sku, 1, 100)));
            }
            List<Future<Answer>> high = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                String sku = skus.get(40 + i);
                high.add(clients.submit(() -> Submissions.one((key, body) -> product.submit(key, body,
                        "X-Priority", "high", "X-Deadline", inTenSeconds()),
                        TestProduct.order("c-high", sku, 1, 100))));
            }

            // Then the low ones are refused before any work, with Retry-After, and counted
            for (Answer a : low) {
                assertThat(a.status()).as("%s", a).isEqualTo(503);
                assertThat(a.response().headers().firstValue("Retry-After")).isPresent();
                assertThat(GameDay.keyStored(product, a.key())).isFalse();
            }
            Metrics after = product.metrics();
            assertThat(after.value("saga_shed_total", "priority", "low")
                    - before.value("saga_shed_total", "priority", "low")).isEqualTo(5);
            assertThat(after.value("saga_shed_total", "priority", "high"))
                    .isEqualTo(before.value("saga_shed_total", "priority", "high"));
            assertThat(after.value("saga_shed_total", "priority", "normal"))
                    .isEqualTo(before.value("saga_shed_total", "priority", "normal"));
            // ... while the high ones, like those in flight, are admitted and hold their stock
            List<Answer> admitted = new ArrayList<>(results(high));
            admitted.addAll(results(held));
            assertThat(admitted).hasSize(45).allSatisfy(a -> {
                assertThat(a.status()).as("%s", a).isEqualTo(202);
                assertThat(a.orderStatus()).as("%s", a).isEqualTo("AWAITING_PAYMENT");
            });
            product.healthy();
            List<UUID> ids = Submissions.ids(admitted);
            Invariants.awaitSettled(product, ids, SETTLE);
            assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 45L));
            Invariants.check(product, ids);
            for (String sku : skus) {
                Invariants.assertStock(product, sku, 0, 1);
            }
        } finally {
            clients.shutdownNow();
        }
    }

    @Test
    void shouldExposeEveryMetricOfDegradedModeAndTheOutbox() {
        // Given an order taken through to CONFIRMED, so the histograms have observations
        String sku = sku();
        product.stock(sku, 1);
        UUID id = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-metrics", sku, 1, 100)));
        product.awaitStatus(id, "CONFIRMED", SETTLE);

        // When the metrics are scraped
        Metrics m = product.metrics();

        // Then every series of the public contract is there, with its labels
        assertThat(m.has("saga_circuit_state", "dependency", "inventory")).isTrue();
        assertThat(m.has("saga_circuit_state", "dependency", "payment")).isTrue();
        for (String name : List.of("saga_circuit_rejections_total", "saga_bulkhead_in_use", "saga_retries_total",
                "saga_retry_budget_exhausted_total")) {
            assertThat(m.has(name, "dependency", "inventory")).as(name).isTrue();
        }
        assertThat(m.has("saga_fallback_total", "operation", "reserve")).isTrue();
        assertThat(m.has("saga_fallback_total", "operation", "release")).isTrue();
        for (String priority : List.of("high", "normal", "low")) {
            assertThat(m.has("saga_shed_total", "priority", priority)).as(priority).isTrue();
        }
        for (String status : List.of("PENDING_CONFIRMATION", "AWAITING_PAYMENT", "PAYMENT_UNKNOWN", "COMPENSATING",
                "CONFIRMED", "CANCELLED", "REJECTED")) {
            assertThat(m.has("saga_orders", "status", status)).as(status).isTrue();
        }
        assertThat(m.has("saga_pending_oldest_age_seconds")).isTrue();
        assertThat(m.has("outbox_pending_rows")).isTrue();
        assertThat(m.has("outbox_oldest_age_seconds")).isTrue();
        for (String histogram : List.of("saga_time_to_terminal_seconds", "outbox_publish_latency_seconds")) {
            assertThat(m.type(histogram)).as(histogram).isEqualTo("histogram");
            assertThat(m.has(histogram + "_bucket", "le", "+Inf")).as(histogram).isTrue();
            assertThat(m.value(histogram + "_count")).as(histogram).isPositive();
        }
    }

    /** Two in five orders are for the SKU in stock, interleaved so every window of ten is 60% "no". */
    private static boolean isInStock(int i) {
        return i % 5 < 2;
    }

    private static String inTenSeconds() {
        return Long.toString(System.currentTimeMillis() + 10_000);
    }

    private static List<Answer> results(List<Future<Answer>> futures)
            throws InterruptedException, ExecutionException, TimeoutException {
        List<Answer> answers = new ArrayList<>();
        for (Future<Answer> f : futures) {
            answers.add(f.get(30, TimeUnit.SECONDS));
        }
        return answers;
    }
}
