package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class PriorityShedderTest {

    private final RecordingListener listener = new RecordingListener();

    @Test
    void shouldParseHeaderCaseInsensitivelyDefaultingToNormal() {
        assertThat(Priority.parse("high")).isEqualTo(Priority.HIGH);
        assertThat(Priority.parse(" HIGH ")).isEqualTo(Priority.HIGH);
        assertThat(Priority.parse("Low")).isEqualTo(Priority.LOW);
        assertThat(Priority.parse("normal")).isEqualTo(Priority.NORMAL);
        assertThat(Priority.parse(null)).isEqualTo(Priority.NORMAL);
        assertThat(Priority.parse("  ")).isEqualTo(Priority.NORMAL);
    }

    @Test
    void shouldRejectUnknownPriority() {
        assertThatThrownBy(() -> Priority.parse("urgent"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("urgent");
    }

    @Test
    void shouldShedLowFirstThenNormalKeepingHeadroomForHigh() {
        // Given limits of high 3, normal 2, low 1
        PriorityShedder shedder = new PriorityShedder(3, 2, 1, listener);

        // When one request of each priority is in flight, admitted lowest first
        Optional<Permit> low = shedder.tryEnter(Priority.LOW);
        Optional<Permit> secondLow = shedder.tryEnter(Priority.LOW);
        Optional<Permit> normal = shedder.tryEnter(Priority.NORMAL);
        Optional<Permit> secondNormal = shedder.tryEnter(Priority.NORMAL);
        Optional<Permit> high = shedder.tryEnter(Priority.HIGH);
        Optional<Permit> secondHigh = shedder.tryEnter(Priority.HIGH);

        // Then each priority stops at its own limit of the shared in-flight count
        assertThat(low).isPresent();
        assertThat(secondLow).isEmpty();
        assertThat(normal).isPresent();
        assertThat(secondNormal).isEmpty();
        assertThat(high).isPresent();
        assertThat(secondHigh).isEmpty();
        assertThat(shedder.inFlight()).isEqualTo(3);
        assertThat(listener.shed(Priority.LOW)).isEqualTo(1);
        assertThat(listener.shed(Priority.NORMAL)).isEqualTo(1);
        assertThat(listener.shed(Priority.HIGH)).isEqualTo(1);
    }

    @Test
    void shouldAdmitAgainOnceRequestsFinish() {
        // Given a full shedder
        PriorityShedder shedder = new PriorityShedder(1, 1, 1, listener);
        Permit only = shedder.tryEnter(Priority.HIGH).orElseThrow();
        assertThat(shedder.tryEnter(Priority.HIGH)).isEmpty();

        // When the request finishes, even if its permit is closed twice
        only.close();
        only.close();

        // Then exactly one slot is free again
        assertThat(shedder.inFlight()).isZero();
        assertThat(shedder.tryEnter(Priority.LOW)).isPresent();
        assertThat(shedder.tryEnter(Priority.LOW)).isEmpty();
    }

    @Test
    void shouldUseDefaultLimitsFromDesign() {
        PriorityShedder shedder = new PriorityShedder(listener);

        assertThat(shedder.limit(Priority.HIGH)).isEqualTo(90);
        assertThat(shedder.limit(Priority.NORMAL)).isEqualTo(60);
        assertThat(shedder.limit(Priority.LOW)).isEqualTo(30);
    }

    @Test
    void shouldCountRequestsDroppedForExpiredDeadline() {
        // Given a shedder
        PriorityShedder shedder = new PriorityShedder(listener);

        // When a high priority request is dropped because its deadline has passed
        shedder.countShed(Priority.HIGH);

        // Then it is counted as shed, and nothing else is
        assertThat(listener.shed(Priority.HIGH)).isEqualTo(1);
        assertThat(listener.shed(Priority.LOW)).isZero();
    }

    @Test
    void shouldKeepAdmittingWhenListenerThrows() {
        // Given a full shedder whose listener fails
        PriorityShedder shedder = new PriorityShedder(1, 1, 1, new ResilienceListener() {
            @Override
            public void onShed(Priority priority) {
                throw new IllegalStateException("metrics bug");
            }
        });
        Permit held = shedder.tryEnter(Priority.HIGH).orElseThrow();

        // When a request is shed, then the slot is freed
        Optional<Permit> refused = shedder.tryEnter(Priority.LOW);
        held.close();

        // Then the shedder still refused, and admits again
        assertThat(refused).isEmpty();
        assertThat(shedder.tryEnter(Priority.LOW)).isPresent();
    }

    @Test
    void shouldNeverExceedLimitNorLeakSlotsUnderConcurrency() throws Exception {
        // Given limits of 8/4/2 and 16 threads entering and leaving with mixed priorities
        PriorityShedder shedder = new PriorityShedder(8, 4, 2, listener);
        AtomicInteger admitted = new AtomicInteger();
        AtomicInteger most = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(16);
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < 16; t++) {
                running.add(pool.submit(() -> {
                    start.await();
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < 2_000; i++) {
                        Priority priority = Priority.values()[random.nextInt(3)];
                        Optional<Permit> permit = shedder.tryEnter(priority);
                        if (permit.isPresent()) {
                            admitted.incrementAndGet();
                            most.accumulateAndGet(shedder.inFlight(), Math::max);
                            permit.get().close();
                        }
                    }
                    return null;
                }));
            }

            // When they run at once
            start.countDown();
            for (Future<?> worker : running) {
                worker.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        // Then the high limit was never exceeded and every slot came back
        assertThat(admitted.get()).isPositive();
        assertThat(most.get()).isLessThanOrEqualTo(8);
        assertThat(shedder.inFlight()).isZero();
    }

    @Test
    void shouldRejectLimitsThatInvertPriorities() {
        assertThatThrownBy(() -> new PriorityShedder(30, 60, 90, listener))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new PriorityShedder(3, 2, 0, listener))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void shouldLetAWaiterInWhenASlotFreesWithinItsWait() throws Exception {
        // Given a full shedder
        PriorityShedder shedder = new PriorityShedder(1, 1, 1, listener);
        Permit held = shedder.tryEnter(Priority.NORMAL).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            // When a request waits up to 5 s and the slot frees meanwhile
            Future<Optional<Permit>> waiter = pool.submit(() -> shedder.tryEnter(Priority.NORMAL, Duration.ofSeconds(5)));
            org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> shedder.waiting() == 1);
            held.close();

            // Then it is admitted, and nothing was shed
            assertThat(waiter.get(5, TimeUnit.SECONDS)).isPresent();
            assertThat(listener.shed(Priority.NORMAL)).isZero();
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldRefuseAWaiterWhoseWaitEnds() {
        PriorityShedder shedder = new PriorityShedder(1, 1, 1, listener);
        shedder.tryEnter(Priority.NORMAL).orElseThrow();

        Optional<Permit> refused = shedder.tryEnter(Priority.NORMAL, Duration.ofMillis(20));

        assertThat(refused).isEmpty();
        assertThat(listener.shed(Priority.NORMAL)).isEqualTo(1);
        assertThat(shedder.waiting()).isZero();
    }

    @Test
    void shouldShareAnAdaptiveLimitInTheCeilingsProportions() {
        // Given an adaptive limit of 9 under ceilings of 90/60/30
        AdaptiveLimit adaptive = new AdaptiveLimit(new AdaptiveLimit.Config(9, 90, 9, Duration.ofMillis(100), 2.0,
                Duration.ZERO, Duration.ofSeconds(1)));
        PriorityShedder shedder = new PriorityShedder(90, 60, 30, adaptive, listener);

        // Then high may use all of it, normal two thirds, low one third
        assertThat(shedder.limit(Priority.HIGH)).isEqualTo(9);
        assertThat(shedder.limit(Priority.NORMAL)).isEqualTo(6);
        assertThat(shedder.limit(Priority.LOW)).isEqualTo(3);
    }

    @Test
    void shouldNotCountRequestsWaitingOnAParticipantAgainstTheAdaptiveLimit() {
        // Given an adaptive limit of 2 requests using the product, and two admitted high requests
        AdaptiveLimit adaptive = new AdaptiveLimit(new AdaptiveLimit.Config(2, 90, 2, Duration.ofMillis(100), 2.0,
                Duration.ZERO, Duration.ofSeconds(1)));
        PriorityShedder shedder = new PriorityShedder(90, 60, 30, adaptive, listener);
        long now = System.nanoTime();
        for (int i = 0; i < 5; i++) {
            adaptive.sample(1_000_000, 0, now + i * 50_000_000L); // one window judged, not congested
        }
        shedder.tryEnter(Priority.HIGH).orElseThrow();
        shedder.tryEnter(Priority.HIGH).orElseThrow();
        assertThat(shedder.tryEnter(Priority.HIGH)).isEmpty();

        // When both wait on a slow participant
        shedder.entered();
        shedder.entered();

        // Then two more may use the product meanwhile, and no more
        assertThat(shedder.tryEnter(Priority.HIGH)).isPresent();
        assertThat(shedder.tryEnter(Priority.HIGH)).isPresent();
        assertThat(shedder.tryEnter(Priority.HIGH)).isEmpty();
        assertThat(shedder.inFlight()).isEqualTo(4);
        assertThat(shedder.usingProduct()).isEqualTo(2);
    }
}
