package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class RetryBudgetTest {

    @Test
    void shouldGrantInitialTokensThenRefuse() {
        // Given a fresh budget of 10
        RetryBudget budget = new RetryBudget(0.1, 10);

        // When 11 retries are asked for without any call
        int granted = 0;
        for (int i = 0; i < 11; i++) {
            if (budget.tryAcquireRetry()) {
                granted++;
            }
        }

        // Then exactly 10 are granted
        assertThat(granted).isEqualTo(10);
        assertThat(budget.availableTokens()).isZero();
    }

    @Test
    void shouldEarnOneRetryForEveryTenCalls() {
        // Given a spent budget
        RetryBudget budget = new RetryBudget(0.1, 10);
        while (budget.tryAcquireRetry()) {
            // spend it
        }

        // When nine calls are recorded, then a tenth
        for (int i = 0; i < 9; i++) {
            budget.recordCall();
        }
        boolean afterNine = budget.tryAcquireRetry();
        budget.recordCall();
        boolean afterTen = budget.tryAcquireRetry();

        // Then nine calls are not enough and ten are, exactly (no floating point shortfall)
        assertThat(afterNine).isFalse();
        assertThat(afterTen).isTrue();
        assertThat(budget.tryAcquireRetry()).isFalse();
    }

    @Test
    void shouldNeverHoldMoreThanInitialTokens() {
        // Given a budget of 10
        RetryBudget budget = new RetryBudget(0.1, 10);

        // When a thousand calls succeed without any retry
        for (int i = 0; i < 1_000; i++) {
            budget.recordCall();
        }

        // Then it still holds 10 tokens, so a later outage gets 10 retries, not 100
        assertThat(budget.availableTokens()).isEqualTo(10.0);
    }

    @Test
    void shouldAllowNoRetryWithZeroInitialAndZeroRatio() {
        RetryBudget budget = new RetryBudget(0.0, 0);
        budget.recordCall();
        assertThat(budget.tryAcquireRetry()).isFalse();
    }

    @Test
    void shouldNeverGrantMoreRetriesThanTokensUnderConcurrency() throws Exception {
        // Given a budget of 10 and 8 threads racing for retries
        RetryBudget budget = new RetryBudget(0.1, 10);
        AtomicInteger granted = new AtomicInteger();
        CountDownLatch start = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> racers = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                racers.add(pool.submit(() -> {
                    start.await();
                    for (int i = 0; i < 1_000; i++) {
                        if (budget.tryAcquireRetry()) {
                            granted.incrementAndGet();
                        }
                    }
                    return null;
                }));
            }

            // When they all ask at once
            start.countDown();
            for (Future<?> racer : racers) {
                racer.get(10, TimeUnit.SECONDS);
            }
        } finally {
            pool.shutdownNow();
        }

        // Then exactly the 10 tokens were handed out
        assertThat(granted).hasValue(10);
    }

    @Test
    void shouldRejectInvalidSettings() {
        assertThatThrownBy(() -> new RetryBudget(1.5, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryBudget(Double.NaN, 10)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new RetryBudget(0.1, -1)).isInstanceOf(IllegalArgumentException.class);
    }
}
