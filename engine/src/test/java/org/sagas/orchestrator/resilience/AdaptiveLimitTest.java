package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class AdaptiveLimitTest {
    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);

    private final AdaptiveLimit.Config config = new AdaptiveLimit.Config(2, 90, 10, Duration.ofMillis(100), 2.0,
            Duration.ofMillis(10), Duration.ofSeconds(30));
    private long now = 0;

    /** One window of 10 samples, each with this own time, the requests using the product at {@code inFlight}. */
    private void window(AdaptiveLimit limit, long ownMs, int inFlight) {
        for (int i = 0; i < 10; i++) {
            now += 10 * MS;
            limit.sample(ownMs * MS, inFlight, now);
        }
    }

    @Test
    void shouldGrowWhileTheLimitBindsAndNothingQueues() {
        // Given a limit learning a baseline of 5 ms of own time per request
        AdaptiveLimit limit = new AdaptiveLimit(config);
        window(limit, 5, 1);
        int before = limit.limit();

        // When windows keep reaching the limit at the baseline's own time
        for (int i = 0; i < 5; i++) {
            window(limit, 5, limit.limit());
        }

        // Then it has grown
        assertThat(limit.limit()).isGreaterThan(before + 5);
    }

    @Test
    void shouldLeaveTheLimitAloneWhenItDoesNotBind() {
        AdaptiveLimit limit = new AdaptiveLimit(config);
        window(limit, 5, 1);
        int before = limit.limit();

        for (int i = 0; i < 5; i++) {
            window(limit, 5, 1);
        }

        assertThat(limit.limit()).isEqualTo(before);
    }

    @Test
    void shouldShrinkWhenTheProductsOwnTimeQueues() {
        // Given a grown limit and a baseline of 5 ms
        AdaptiveLimit limit = new AdaptiveLimit(config);
        for (int i = 0; i < 10; i++) {
            window(limit, 5, limit.limit());
        }
        int grown = limit.limit();

        // When own time per request rises to 40 ms (past twice the baseline and past baseline + slack)
        window(limit, 40, grown);
        window(limit, 40, grown);

        // Then the limit falls, and never below the floor however long it lasts
        assertThat(limit.limit()).isLessThan(grown);
        for (int i = 0; i < 50; i++) {
            window(limit, 400, grown);
        }
        assertThat(limit.limit()).isEqualTo(2);
    }

    @Test
    void shouldIgnoreNoiseWithinTheSlack() {
        // Given a 2 ms baseline that doubles from noise: within baseline + 10 ms slack
        AdaptiveLimit limit = new AdaptiveLimit(config);
        window(limit, 2, 1);
        int before = limit.limit();

        window(limit, 9, before);

        assertThat(limit.limit()).isGreaterThanOrEqualTo(before);
    }

    @Test
    void shouldCountAsCongestedWhileQueueingAndNotOnceTheJudgementIsOld() {
        AdaptiveLimit limit = new AdaptiveLimit(config);
        // Nothing known yet: nothing assumed
        assertThat(limit.congested(now)).isFalse();

        limit.sample(5 * MS, 1, now); // opens the first window
        window(limit, 5, 1);
        assertThat(limit.congested(now)).isFalse();

        window(limit, 100, 1);
        assertThat(limit.congested(now)).isTrue();
        // Two windows (200 ms) without a request: no queue is left to judge
        assertThat(limit.congested(now + 300 * MS)).isFalse();
    }

    @Test
    void shouldRejectIncoherentConfig() {
        assertThatThrownBy(() -> new AdaptiveLimit.Config(0, 90, 10, Duration.ofMillis(100), 2.0, Duration.ZERO,
                Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AdaptiveLimit.Config(2, 90, 10, Duration.ofMillis(100), 1.0, Duration.ZERO,
                Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new AdaptiveLimit.Config(2, 5, 10, Duration.ofMillis(100), 2.0, Duration.ZERO,
                Duration.ofSeconds(1))).isInstanceOf(IllegalArgumentException.class);
    }
}
