package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.sagas.app.GameDay.REALISTIC;
import static org.sagas.app.GameDay.SETTLE;
import static org.sagas.app.GameDay.WITHIN_BUDGET;
import static org.sagas.app.Submissions.sku;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.sagas.app.Submissions.Answer;
import org.sagas.testkit.RealInfrastructure;

/**
 * Our slowness is not theirs (docs/decisions/0021), both sides on the real product: a product
 * starved of CPU in front of a healthy inventory refuses what it cannot serve (503) and parks
 * nothing, its breaker never opening; an idle product in front of a slow inventory still parks,
 * and its breaker opens, as degraded mode requires.
 */
@RealInfrastructure
class OverloadIT extends GameDayLifecycle {
    /** Busy threads in the product's JVM: twice the cores this machine has. */
    private static final int HOGS = 4;

    @Test
    void shouldParkNothingWhenTheProductIsStarvedOfCpuAndInventoryIsHealthy() throws Exception {
        // Given realistic inventory timeouts, a healthy inventory answering in 40 ms, and stock
        product.ensure(REALISTIC);
        product.inventoryFaults(GameDay.inventoryLatency(40));
        String sku = sku();
        product.stock(sku, 1_000);
        double fallbacksBefore = product.metrics().value("saga_fallback_total", "operation", "reserve");

        // When 240 orders come from 48 clients at once while the product's cores are taken by busy threads
        List<Answer> answers;
        AtomicBoolean busy = new AtomicBoolean(true);
        List<Thread> hogs = new ArrayList<>();
        try (CircuitWatch breaker = CircuitWatch.inventory(product)) {
            for (int i = 0; i < HOGS; i++) {
                Thread hog = new Thread(() -> {
                    long x = 0;
                    while (busy.get()) {
                        x += System.nanoTime() % 7;
                    }
                    if (x == 42) {
                        System.out.print("");
                    }
                }, "cpu-hog-" + i);
                hog.setDaemon(true);
                hog.start();
                hogs.add(hog);
            }
            List<String> bodies = new ArrayList<>();
            for (int i = 0; i < 240; i++) {
                bodies.add(TestProduct.order("c-starved-" + (i % 40), sku, 1, 100));
            }
            answers = Submissions.concurrently(48, bodies, product::submitWithinApiBudget);
            busy.set(false);
            for (Thread hog : hogs) {
                hog.join();
            }

            // Then no order was parked: each was accepted with its stock reserved, or refused with 503 and stored nothing
            for (Answer a : answers) {
                assertThat(a.status()).as("%s", a).isIn(202, 503);
                if (a.status() == 202) {
                    assertThat(a.orderStatus()).as("%s", a).isEqualTo("AWAITING_PAYMENT");
                } else {
                    assertThat(a.response().headers().firstValue("Retry-After")).as("%s", a).isPresent();
                    assertThat(GameDay.keyStored(product, a.key())).as("%s", a).isFalse();
                }
            }
            // And inventory was never blamed: the breaker stayed closed, no reservation fell back
            assertThat(breaker.highestState()).isZero();
        } finally {
            busy.set(false);
        }
        assertThat(product.metrics().value("saga_fallback_total", "operation", "reserve")).isEqualTo(fallbacksBefore);
        List<UUID> accepted = answers.stream().filter(a -> a.status() == 202).map(Answer::orderId).toList();
        assertThat(accepted).isNotEmpty();
        Invariants.awaitSettled(product, accepted, SETTLE);
        assertThat(Invariants.statuses(product, accepted)).containsExactly(Map.entry("CONFIRMED", (long) accepted.size()));
        Invariants.check(product, accepted);
    }

    @Test
    void shouldStillParkAndOpenTheBreakerWhenInventoryIsSlowAndTheProductIdle() {
        // Given realistic timeouts and an inventory answering in 4 s
        product.ensure(REALISTIC);
        String sku = sku();
        product.stock(sku, 100);
        product.inventoryFaults(GameDay.inventoryLatency(4_000));

        // When 40 orders come from 8 clients
        List<String> bodies = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            bodies.add(TestProduct.order("c-slow-inventory-" + i, sku, 1, 100));
        }
        List<Answer> answers;
        try (CircuitWatch breaker = CircuitWatch.inventory(product)) {
            answers = Submissions.concurrently(8, bodies, product::submitWithinApiBudget);

            // Then each was accepted as pending within the budget, none refused, and the breaker opened
            for (Answer a : answers) {
                assertThat(a.status()).as("%s", a).isEqualTo(202);
                assertThat(a.orderStatus()).as("%s", a).isEqualTo("PENDING_CONFIRMATION");
                assertThat(a.took()).as("%s", a).isLessThan(WITHIN_BUDGET);
            }
            org.awaitility.Awaitility.await("breaker open").atMost(java.time.Duration.ofSeconds(5))
                    .until(() -> breaker.highestState() == 2);
        }

        // And once inventory is healthy again every one of them is confirmed
        product.healthy();
        List<UUID> ids = Submissions.ids(answers);
        Invariants.awaitSettled(product, ids, SETTLE);
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", 40L));
        Invariants.check(product, ids);
    }
}
