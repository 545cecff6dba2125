package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.failsafe.Failsafe;
import dev.failsafe.FailsafeException;
import dev.failsafe.RetryPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

class FullJitterTest {

    private static final Duration BASE = Duration.ofMillis(50);
    private static final Duration CAP = Duration.ofMillis(200);

    @Test
    void shouldGrowCeilingExponentiallyUpToCap() {
        // Given the inventory backoff, 50 ms base and 200 ms cap
        FullJitter jitter = new FullJitter(BASE, CAP, () -> 0.5);

        // When the delays before successive retries are computed with a random fraction of 0.5
        // Then they are half of 50, 100, 200, 200 ms
        assertThat(jitter.delay(0)).isEqualTo(Duration.ofMillis(25));
        assertThat(jitter.delay(1)).isEqualTo(Duration.ofMillis(50));
        assertThat(jitter.delay(2)).isEqualTo(Duration.ofMillis(100));
        assertThat(jitter.delay(3)).isEqualTo(Duration.ofMillis(100));
    }

    @Test
    void shouldStayWithinZeroAndCeilingForExtremeRandomValues() {
        // Given random sources at both ends of [0, 1)
        FullJitter lowest = new FullJitter(BASE, CAP, () -> 0.0);
        FullJitter highest = new FullJitter(BASE, CAP, () -> Math.nextDown(1.0));

        // Then delays span the whole interval without leaving it
        for (int n = 0; n < 10; n++) {
            long ceilingMillis = Math.min(200, 50L << Math.min(n, 8));
            assertThat(lowest.delay(n)).isEqualTo(Duration.ZERO);
            assertThat(highest.delay(n))
                    .isLessThan(Duration.ofMillis(ceilingMillis))
                    .isGreaterThan(Duration.ofMillis(ceilingMillis - 1));
        }
    }

    @Test
    void shouldStayBelowCapWithDefaultRandomSource() {
        // Given the default thread-local random source
        FullJitter jitter = new FullJitter(BASE, CAP);

        // Then every delay stays within its interval
        for (int i = 0; i < 1_000; i++) {
            assertThat(jitter.delay(0)).isBetween(Duration.ZERO, BASE);
            assertThat(jitter.delay(5)).isBetween(Duration.ZERO, CAP);
        }
    }

    @Test
    void shouldNotOverflowForLargeRetryNumbers() {
        // Given a large base and cap
        FullJitter jitter = new FullJitter(Duration.ofDays(1), Duration.ofDays(400), () -> Math.nextDown(1.0));

        // When the delay before a very late retry is computed
        Duration delay = jitter.delay(Integer.MAX_VALUE);

        // Then it is capped, not wrapped around to a negative number
        assertThat(delay).isPositive().isLessThanOrEqualTo(Duration.ofDays(400));
        assertThat(new FullJitter(Duration.ZERO, CAP, () -> 0.9).delay(Integer.MAX_VALUE)).isZero();
    }

    @Test
    void shouldDriveFailsafeRetryPolicyDelays() {
        // Given a Failsafe retry policy using the jitter as its delay function
        FullJitter jitter = new FullJitter(Duration.ofMillis(2), Duration.ofMillis(4), () -> 0.5);
        List<Duration> scheduled = new CopyOnWriteArrayList<>();
        RetryPolicy<Object> policy = RetryPolicy.builder()
                .withMaxAttempts(4)
                .withDelayFn(jitter.asDelayFunction())
                .onRetryScheduled(event -> scheduled.add(event.getDelay()))
                .build();

        // When a call fails on every attempt
        Throwable thrown = catchThrowable(() -> Failsafe.with(List.of(policy))
                .run(() -> {
                    throw new IOException("down");
                }));

        // Then the delays before retries 1, 2 and 3 follow the full jitter ceilings 2, 4, 4 ms
        assertThat(thrown).isInstanceOf(FailsafeException.class);
        assertThat(scheduled).containsExactly(Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(2));
    }

    @Test
    void shouldRejectInvalidSettings() {
        assertThatThrownBy(() -> new FullJitter(CAP, BASE)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FullJitter(Duration.ofMillis(-1), CAP))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new FullJitter(BASE, CAP).delay(-1)).isInstanceOf(IllegalArgumentException.class);
    }
}
