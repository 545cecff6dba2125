package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import org.junit.jupiter.api.Test;

class DeadlineTest {

    private static final Instant START = Instant.parse("2026-01-01T12:00:00Z");
    private static final Clock CLOCK = Clock.fixed(START, ZoneOffset.UTC);

    private static Clock later(long millis) {
        return Clock.offset(CLOCK, Duration.ofMillis(millis));
    }

    @Test
    void shouldReportRemainingTimeOnInjectedClock() {
        // Given a 500 ms budget
        Deadline deadline = Deadline.after(Duration.ofMillis(500), CLOCK);

        // When 120 ms have passed
        Duration remaining = deadline.remaining(later(120));

        // Then 380 ms are left and the deadline has not expired
        assertThat(remaining).isEqualTo(Duration.ofMillis(380));
        assertThat(deadline.isExpired(later(120))).isFalse();
    }

    @Test
    void shouldNeverReportNegativeRemainingTimeOnceExpired() {
        // Given a 500 ms budget
        Deadline deadline = Deadline.after(Duration.ofMillis(500), CLOCK);

        // When 2 s have passed
        Clock afterwards = later(2_000);

        // Then nothing is left, not a negative amount, and the deadline has expired
        assertThat(deadline.remaining(afterwards)).isEqualTo(Duration.ZERO);
        assertThat(deadline.isExpired(afterwards)).isTrue();
        assertThat(deadline.isExpired(later(500))).isTrue();
    }

    @Test
    void shouldCapOwnTimeoutToRemainingTime() {
        // Given 150 ms left
        Deadline deadline = Deadline.after(Duration.ofMillis(150), CLOCK);

        // When a call with a 300 ms timeout and one with a 100 ms timeout ask for their budget
        Duration capped = deadline.cap(Duration.ofMillis(300), CLOCK);
        Duration kept = deadline.cap(Duration.ofMillis(100), CLOCK);

        // Then the first gets what is left and the second keeps its own
        assertThat(capped).isEqualTo(Duration.ofMillis(150));
        assertThat(kept).isEqualTo(Duration.ofMillis(100));
        assertThat(deadline.cap(Duration.ofMillis(300), later(1_000))).isEqualTo(Duration.ZERO);
    }

    @Test
    void shouldRoundTripEpochMillisFromHeader() {
        // Given an X-Deadline header value
        long header = START.toEpochMilli() + 500;

        // When it is parsed into a deadline
        Deadline deadline = Deadline.ofEpochMillis(header);

        // Then it carries the same instant, however it was made
        assertThat(deadline.epochMillis()).isEqualTo(header);
        assertThat(deadline).isEqualTo(Deadline.at(START.plusMillis(500)));
        assertThat(deadline.toInstant()).isEqualTo(START.plusMillis(500));
        assertThat(deadline.remaining(CLOCK)).isEqualTo(Duration.ofMillis(500));
    }

    @Test
    void shouldUseSystemClockWithoutInjectedOne() {
        // Given a deadline far in the future and one in the past
        Deadline future = Deadline.after(Duration.ofHours(1));
        Deadline past = Deadline.ofEpochMillis(0);

        // Then the system clock is consulted
        assertThat(future.isExpired()).isFalse();
        assertThat(future.remaining()).isGreaterThan(Duration.ofMinutes(59));
        assertThat(future.cap(Duration.ofMillis(300))).isEqualTo(Duration.ofMillis(300));
        assertThat(past.isExpired()).isTrue();
    }

    @Test
    void shouldRejectNegativeBudget() {
        assertThatThrownBy(() -> Deadline.after(Duration.ofMillis(-1), CLOCK))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
