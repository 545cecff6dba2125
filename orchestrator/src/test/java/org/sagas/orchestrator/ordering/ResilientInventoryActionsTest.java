package org.sagas.orchestrator.ordering;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.resilience.Deadline;
import org.sagas.orchestrator.resilience.Priority;
import org.sagas.orchestrator.resilience.ResilienceConfig;
import org.sagas.orchestrator.resilience.ResilienceListener;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.resilience.TimedOutFailure;
import org.sagas.orchestrator.resilience.TransientFailure;
import org.sagas.orchestrator.saga.StepContext;
import org.sagas.orchestrator.saga.StepResult;

/**
 * A reservation the product's own slowness cut short (docs/decisions/0021): asked again under its
 * key, and never withdrawn on a second call that did nothing. The inventory here is a scripted
 * stand-in for the port: each call takes the next answer.
 */
class ResilientInventoryActionsTest {
    private static final OrderData ORDER = new OrderData(UUID.randomUUID(), "c-1", "EUR", 100,
            List.of(new OrderLine("SKU-1", 1, 100)));
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final List<String> keys = new ArrayList<>();

    /** Answers in order: a {@link RuntimeException} is thrown, anything else returned. */
    private InventoryPort scripted(Object... answers) {
        return new InventoryPort() {
            private int next;

            @Override
            public Reservation reserve(String idempotencyKey, UUID orderId, List<OrderLine> lines, Duration timeout,
                    long deadlineEpochMillis) {
                keys.add(idempotencyKey);
                Object answer = answers[Math.min(next++, answers.length - 1)];
                if (answer instanceof RuntimeException e) {
                    throw e;
                }
                return (Reservation) answer;
            }

            @Override
            public void release(String idempotencyKey, String reservationKey, UUID orderId, Duration timeout,
                    long deadlineEpochMillis) {
            }
        };
    }

    private StepResult<OrderData> reserve(InventoryPort inventory, ResilientDependency stack) {
        // A deadline the product has nearly spent already: 120 ms left, for an inventory that usually
        // answers in 60 (less than three of its answers: no fair chance)
        StepResult<OrderData> result = new ResilientInventoryActions(inventory, stack, registry, true)
                .reserve(ORDER, new StepContext(ORDER.orderId(), System.currentTimeMillis() + 120));
        // Timing is the premise: on a machine stalled past the deadline the first call is not sent at all
        org.junit.jupiter.api.Assumptions.assumeFalse(keys.isEmpty(), "the first reservation was not even sent");
        return result;
    }

    private static ResilientDependency knownToAnswerIn60Ms() {
        return knownToAnswerIn60Ms(24);
    }

    private static ResilientDependency knownToAnswerIn60Ms(int places) {
        ResilienceConfig config = ResilienceConfig.inventoryDefaults().withoutRetries();
        ResilientDependency stack = ResilientDependency.create(config.toBuilder().bulkhead(
                org.sagas.orchestrator.resilience.BulkheadConfig.builder().permits(places)
                        .maxWait(config.bulkhead().orElseThrow().maxWait()).build()).build(),
                ResilienceListener.NONE);
        // Five answers: the stack does not take fewer for a usual time (a cold start's first is no guide)
        for (int i = 0; i < 5; i++) {
            stack.call(org.sagas.orchestrator.resilience.Deadline.after(Duration.ofSeconds(5)), timeout -> {
                Thread.sleep(60);
                return "ok";
            });
        }
        return stack;
    }

    @Test
    void shouldAskAgainUnderTheSameKeyWhenOurSlownessCutTheReservationShort() {
        // Given an attempt that times out, cut short, having perhaps reserved; then inventory answers
        InventoryPort inventory = scripted(new TimedOutFailure("timed out", null, true), InventoryPort.Reservation.RESERVED);

        // When reserving
        StepResult<OrderData> result = reserve(inventory, knownToAnswerIn60Ms());

        // Then it was asked again under the same key, and the order goes on
        assertThat(result).isInstanceOf(StepResult.Done.class);
        assertThat(keys).hasSize(2).containsOnly(ORDER.reserveKey());
        assertThat(registry.get("saga.reservations.asked.again").counter().count()).isEqualTo(1);
    }

    @Test
    void shouldWaitForAPlaceToAskAgainLongerThanAFreshCallWould() throws Exception {
        // Given an inventory stack of one bulkhead place (a fresh call waits 50 ms for it), and a
        // first reservation cut short while another caller queues for that place and keeps it 200 ms
        ResilientDependency stack = knownToAnswerIn60Ms(1);
        java.util.concurrent.CountDownLatch queued = new java.util.concurrent.CountDownLatch(1);
        java.util.concurrent.atomic.AtomicBoolean otherHeldItFirst = new java.util.concurrent.atomic.AtomicBoolean();
        Thread other = new Thread(() -> {
            queued.countDown();
            stack.holdPlace(Deadline.after(Duration.ofSeconds(5)), false, Priority.HIGH, r -> { })
                    .ifPresent(place -> {
                        otherHeldItFirst.set(keys.size() == 1);
                        sleep(200);
                        place.close();
                    });
        });
        InventoryPort inventory = new InventoryPort() {
            @Override
            public Reservation reserve(String idempotencyKey, UUID orderId, List<OrderLine> lines, Duration timeout,
                    long deadlineEpochMillis) {
                keys.add(idempotencyKey);
                if (keys.size() == 1) {
                    other.start();
                    await(queued);
                    sleep(30); // for the other caller to be queued on the (fair) bulkhead
                    throw new TimedOutFailure("timed out", null, true);
                }
                return Reservation.RESERVED;
            }

            @Override
            public void release(String idempotencyKey, String reservationKey, UUID orderId, Duration timeout,
                    long deadlineEpochMillis) {
            }
        };

        // When reserving
        StepResult<OrderData> result = reserve(inventory, stack);
        other.join();
        org.junit.jupiter.api.Assumptions.assumeTrue(otherHeldItFirst.get(), "the other caller was not queued in time");

        // Then the second ask waited the 200 ms for the place, was sent, and the order goes on
        assertThat(result).isInstanceOf(StepResult.Done.class);
        assertThat(keys).hasSize(2).containsOnly(ORDER.reserveKey());
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void await(java.util.concurrent.CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void shouldParkNotWithdrawWhenTheSecondCallDidNothing() {
        // Given an attempt cut short that may have reserved, then inventory saying it did not start
        InventoryPort inventory = scripted(new TimedOutFailure("timed out", null, true),
                TransientFailure.withoutEffect("503", null));

        // When reserving
        StepResult<OrderData> result = reserve(inventory, knownToAnswerIn60Ms());

        // Then the first call's doubt stands: the order parks as unknown, to be settled by its key,
        // and is never withdrawn (which would forget a reservation that may exist)
        assertThat(result).isInstanceOf(StepResult.Unknown.class);
    }
}
