package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.Test;

class SemaphoreBulkheadTest {

    @Test
    void shouldRejectWhenAllPermitsTakenAndWaitElapses() {
        // Given a bulkhead of 2 with both permits taken
        SemaphoreBulkhead bulkhead = new SemaphoreBulkhead(2);
        Permit first = bulkhead.tryAcquire(Duration.ZERO).orElseThrow();
        bulkhead.tryAcquire(Duration.ZERO).orElseThrow();

        // When a third caller waits 10 ms
        Optional<Permit> third = bulkhead.tryAcquire(Duration.ofMillis(10));

        // Then it is rejected, and admitted once a permit is returned
        assertThat(third).isEmpty();
        assertThat(bulkhead.inUse()).isEqualTo(2);
        first.close();
        assertThat(bulkhead.tryAcquire(Duration.ZERO)).isPresent();
    }

    @Test
    void shouldReleaseExactlyOnceWhenPermitClosedTwice() {
        // Given a bulkhead of 2 with one permit taken
        SemaphoreBulkhead bulkhead = new SemaphoreBulkhead(2);
        Permit permit = bulkhead.tryAcquire(Duration.ZERO).orElseThrow();

        // When the permit is closed twice
        permit.close();
        permit.close();

        // Then only one permit came back: the limit is not inflated
        assertThat(permit.isReleased()).isTrue();
        assertThat(bulkhead.availablePermits()).isEqualTo(2);
        assertThat(bulkhead.inUse()).isZero();
    }

    @Test
    void shouldHandPermitToWaiterWhenReleased() throws Exception {
        // Given a full bulkhead and a caller willing to wait 5 s
        SemaphoreBulkhead bulkhead = new SemaphoreBulkhead(1);
        Permit held = bulkhead.tryAcquire(Duration.ZERO).orElseThrow();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<Optional<Permit>> waiter = pool.submit(() -> bulkhead.tryAcquire(Duration.ofSeconds(5)));

            // When the holder finishes
            held.close();

            // Then the waiter gets the permit
            Optional<Permit> handed = waiter.get(5, TimeUnit.SECONDS);
            assertThat(handed).isPresent();
            assertThat(bulkhead.inUse()).isEqualTo(1);
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void shouldReturnEmptyAndKeepInterruptStatusWhenInterruptedWhileWaiting() {
        // Given a full bulkhead and an interrupted caller
        SemaphoreBulkhead bulkhead = new SemaphoreBulkhead(1);
        bulkhead.tryAcquire(Duration.ZERO).orElseThrow();
        Thread.currentThread().interrupt();

        // When it tries to wait for a permit
        Optional<Permit> permit = bulkhead.tryAcquire(Duration.ofSeconds(5));

        // Then it gets none, keeps its interrupt status and took nothing
        assertThat(permit).isEmpty();
        assertThat(Thread.interrupted()).isTrue();
        assertThat(bulkhead.inUse()).isEqualTo(1);
    }

    /**
     * The scenario of Failsafe's leaking bulkhead: waiters that time out or are interrupted while the
     * permits change hands must not leave a permit behind.
     */
    @Test
    void shouldNeverLeakPermitsWhenWaitersTimeOutOrAreInterrupted() throws Exception {
        // Given 4 permits, 32 threads with waits of 0 to 2 ms, some interrupting each other
        int permits = 4;
        int threads = 32;
        int rounds = 200;
        SemaphoreBulkhead bulkhead = new SemaphoreBulkhead(permits);
        AtomicInteger holders = new AtomicInteger();
        AtomicInteger mostHolders = new AtomicInteger();
        AtomicInteger acquired = new AtomicInteger();
        AtomicInteger rejected = new AtomicInteger();
        List<Thread> workers = new CopyOnWriteArrayList<>();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(threads, task -> {
            Thread thread = new Thread(task);
            workers.add(thread);
            return thread;
        });

        // When they all compete for the permits
        try {
            List<Future<?>> running = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                running.add(pool.submit(() -> {
                    passGate(start);
                    ThreadLocalRandom random = ThreadLocalRandom.current();
                    for (int i = 0; i < rounds; i++) {
                        if (random.nextInt(8) == 0) {
                            workers.get(random.nextInt(workers.size())).interrupt();
                        }
                        Optional<Permit> permit = bulkhead.tryAcquire(Duration.ofNanos(random.nextLong(2_000_000)));
                        // An interrupt aimed at this thread must not cut its next wait short.
                        Thread.interrupted();
                        if (permit.isEmpty()) {
                            rejected.incrementAndGet();
                            continue;
                        }
                        acquired.incrementAndGet();
                        mostHolders.accumulateAndGet(holders.incrementAndGet(), Math::max);
                        LockSupport.parkNanos(random.nextLong(50_000, 500_000));
                        holders.decrementAndGet();
                        permit.get().close();
                        if (random.nextBoolean()) {
                            permit.get().close();
                        }
                    }
                    return null;
                }));
            }
            start.countDown();
            for (Future<?> worker : running) {
                worker.get(30, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        // Then the storm really happened, the limit held, and every permit is back
        assertThat(acquired.get()).isPositive();
        assertThat(rejected.get()).isPositive();
        assertThat(mostHolders.get()).isLessThanOrEqualTo(permits);
        assertThat(bulkhead.inUse()).isZero();
        assertThat(bulkhead.availablePermits()).isEqualTo(permits);
        for (int i = 0; i < permits; i++) {
            assertThat(bulkhead.tryAcquire(Duration.ZERO)).isPresent();
        }
        assertThat(bulkhead.tryAcquire(Duration.ZERO)).isEmpty();
    }

    /** Waits for the start signal; a peer may already be interrupting this thread. */
    private static void passGate(CountDownLatch gate) {
        while (true) {
            try {
                gate.await();
                return;
            } catch (InterruptedException stray) {
                // Part of the storm under test, not a request to stop: wait on.
            }
        }
    }

    @Test
    void shouldRejectFewerThanOnePermit() {
        assertThatThrownBy(() -> new SemaphoreBulkhead(0)).isInstanceOf(IllegalArgumentException.class);
    }
}
