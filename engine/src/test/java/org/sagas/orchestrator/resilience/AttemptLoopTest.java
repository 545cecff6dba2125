package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AttemptLoopTest {
    private static final Duration ALLOWED = Duration.ofMillis(200);

    @Test
    void shouldCountTheWholeTimeOfATimeoutNoticedOnTime() {
        // A timeout noticed within a core's usual wake-up: the attempt had all its time
        assertThat(AttemptLoop.onACore(ALLOWED, millis(200))).isEqualTo(ALLOWED);
        assertThat(AttemptLoop.onACore(ALLOWED, millis(209))).isEqualTo(ALLOWED);
    }

    @Test
    void shouldTakeOffHowLateATimeoutWasNoticed() {
        // Noticed 160 ms late: the product's threads waited for cores; the attempt had 50 ms of its own
        assertThat(AttemptLoop.onACore(ALLOWED, millis(360))).isEqualTo(Duration.ofMillis(50));
        assertThat(AttemptLoop.onACore(ALLOWED, millis(900))).isZero();
    }

    private static long millis(long ms) {
        return Duration.ofMillis(ms).toNanos();
    }
}
