package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TokenBucketPacerTest {

    private final AtomicLong now = new AtomicLong(1_000_000_000L);

    private void advance(long millis) {
        now.addAndGet(Duration.ofMillis(millis).toNanos());
    }

    @Test
    void shouldStartAtTenthOfMaxRateWithOnePermitInHand() {
        // Given a pacer of at most 50 per second
        TokenBucketPacer pacer = new TokenBucketPacer(50, now::get);

        // When permits are asked for at once
        boolean first = pacer.tryAcquire();
        boolean second = pacer.tryAcquire();

        // Then one is granted and the next comes after 1/5 s
        assertThat(pacer.currentRate()).isEqualTo(5.0);
        assertThat(first).isTrue();
        assertThat(second).isFalse();
        assertThat(pacer.timeUntilNextPermit()).isEqualTo(Duration.ofMillis(200));
        advance(199);
        assertThat(pacer.tryAcquire()).isFalse();
        advance(1);
        assertThat(pacer.timeUntilNextPermit()).isZero();
        assertThat(pacer.tryAcquire()).isTrue();
    }

    @Test
    void shouldDoubleRateEverySecondUpToMax() {
        // Given a pacer of at most 50 per second, starting at 5
        TokenBucketPacer pacer = new TokenBucketPacer(50, now::get);

        // When time passes without back-off
        // Then the rate doubles each second and stops at the maximum
        assertThat(pacer.currentRate()).isEqualTo(5.0);
        advance(999);
        assertThat(pacer.currentRate()).isEqualTo(5.0);
        advance(1);
        assertThat(pacer.currentRate()).isEqualTo(10.0);
        advance(1_000);
        assertThat(pacer.currentRate()).isEqualTo(20.0);
        advance(1_000);
        assertThat(pacer.currentRate()).isEqualTo(40.0);
        advance(1_000);
        assertThat(pacer.currentRate()).isEqualTo(50.0);
        advance(60_000);
        assertThat(pacer.currentRate()).isEqualTo(50.0);
    }

    @Test
    void shouldGrantAboutMaxRatePermitsPerSecondOnceRampedUp() {
        // Given a pacer ramped up to its maximum of 50 per second
        TokenBucketPacer pacer = new TokenBucketPacer(50, now::get);
        advance(10_000);

        // When a resumer polls every millisecond for one second
        int granted = 0;
        for (int ms = 0; ms < 1_000; ms++) {
            if (pacer.tryAcquire()) {
                granted++;
            }
            advance(1);
        }

        // Then about 50 permits were granted, not a burst of saved-up ones
        assertThat(granted).isBetween(50, 51);
    }

    @Test
    void shouldGrantOnlyOnePermitAfterLongIdle() {
        // Given a pacer that has been idle for a minute
        TokenBucketPacer pacer = new TokenBucketPacer(50, now::get);
        pacer.tryAcquire();
        advance(60_000);

        // Then one permit is in hand, not a minute's worth
        assertThat(pacer.tryAcquire()).isTrue();
        assertThat(pacer.tryAcquire()).isFalse();
    }

    @Test
    void shouldHalveRateOnBackOffButNotBelowStartRate() {
        // Given a pacer at 40 per second
        TokenBucketPacer pacer = new TokenBucketPacer(50, now::get);
        advance(3_000);
        assertThat(pacer.currentRate()).isEqualTo(40.0);

        // When the breaker trips again
        pacer.backOff();

        // Then the rate halves, the next permit waits for the slower pace,
        // and doubling starts over from the moment of back-off
        assertThat(pacer.currentRate()).isEqualTo(20.0);
        assertThat(pacer.tryAcquire()).isFalse();
        assertThat(pacer.timeUntilNextPermit()).isEqualTo(Duration.ofMillis(50));
        advance(999);
        assertThat(pacer.currentRate()).isEqualTo(20.0);
        advance(1);
        assertThat(pacer.currentRate()).isEqualTo(40.0);

        // And repeated back-offs stop at the start rate
        pacer.backOff();
        pacer.backOff();
        pacer.backOff();
        assertThat(pacer.currentRate()).isEqualTo(5.0);
    }

    @Test
    void shouldResetToStartRate() {
        // Given a pacer ramped up to its maximum
        TokenBucketPacer pacer = new TokenBucketPacer(50, now::get);
        advance(10_000);

        // When reset for a fresh resume run
        pacer.reset();

        // Then it starts slow again with one permit in hand
        assertThat(pacer.currentRate()).isEqualTo(5.0);
        assertThat(pacer.tryAcquire()).isTrue();
        assertThat(pacer.tryAcquire()).isFalse();
    }

    @Test
    void shouldStartAtOnePerSecondForSmallMaximum() {
        assertThat(new TokenBucketPacer(5, now::get).currentRate()).isEqualTo(1.0);
        assertThat(new TokenBucketPacer(0.5, now::get).currentRate()).isEqualTo(0.5);
        assertThat(new TokenBucketPacer(50, 2, now::get).currentRate()).isEqualTo(2.0, within(1e-9));
    }

    @Test
    void shouldRejectInvalidRates() {
        assertThatThrownBy(() -> new TokenBucketPacer(0, now::get)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TokenBucketPacer(10, 20, now::get))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TokenBucketPacer(Double.NaN, now::get))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
