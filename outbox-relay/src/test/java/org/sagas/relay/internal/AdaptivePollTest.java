package org.sagas.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class AdaptivePollTest {

    @Test
    void shouldDoubleThePauseAfterEachEmptyReadUpToTheInterval() {
        AdaptivePoll poll = new AdaptivePoll(Duration.ofMillis(20));
        assertThat(ms(poll.idlePauseNanos())).isEqualTo(1);
        assertThat(ms(poll.idlePauseNanos())).isEqualTo(2);
        assertThat(ms(poll.idlePauseNanos())).isEqualTo(4);
        assertThat(ms(poll.idlePauseNanos())).isEqualTo(8);
        assertThat(ms(poll.idlePauseNanos())).isEqualTo(16);
        assertThat(ms(poll.idlePauseNanos())).isEqualTo(20);
        assertThat(ms(poll.idlePauseNanos())).isEqualTo(20);
    }

    @Test
    void shouldPollQuicklyAgainAfterAReadFoundRows() {
        AdaptivePoll poll = new AdaptivePoll(Duration.ofMillis(20));
        for (int i = 0; i < 10; i++) {
            poll.idlePauseNanos();
        }
        poll.foundRows();
        assertThat(ms(poll.idlePauseNanos())).isEqualTo(1);
    }

    @Test
    void shouldGrowToTheIdleIntervalWhileEveryRowCameWithAWakeUp() {
        AdaptivePoll poll = new AdaptivePoll(Duration.ofMillis(20), Duration.ofMillis(1000));
        long now = 0;
        poll.foundRows(false, now);
        long last = 0;
        for (int i = 0; i < 20; i++) {
            last = ms(poll.idlePauseNanos(now));
        }
        assertThat(last).isEqualTo(1000);
    }

    @Test
    void shouldWaitForTheNextWakeUpAfterRowsWhileEveryRowCameWithOne() {
        // Given a relay whose writers wake it (an idle interval longer than the interval)
        AdaptivePoll poll = new AdaptivePoll(Duration.ofMillis(20), Duration.ofMillis(1000));

        // When a read finds rows that came with a wake-up
        poll.foundRows(false, 0);

        // Then it trusts the next wake-up: no quick looks in between, the idle interval at once
        assertThat(poll.trustsWakeUps(0)).isTrue();
        assertThat(ms(poll.idlePauseNanos(0))).isEqualTo(1000);
    }

    @Test
    void shouldLookQuicklyAgainAfterRowsWhenSomeCameWithoutAWakeUpOrNoWriterWakesIt() {
        AdaptivePoll unannounced = new AdaptivePoll(Duration.ofMillis(20), Duration.ofMillis(1000));
        unannounced.foundRows(true, 0);
        assertThat(unannounced.trustsWakeUps(0)).isFalse();
        assertThat(ms(unannounced.idlePauseNanos(0))).isEqualTo(1);

        AdaptivePoll noWakeUps = new AdaptivePoll(Duration.ofMillis(20));
        noWakeUps.foundRows(false, 0);
        assertThat(noWakeUps.trustsWakeUps(0)).isFalse();
        assertThat(ms(noWakeUps.idlePauseNanos(0))).isEqualTo(1);
    }

    @Test
    void shouldKeepToThePollIntervalForAMinuteAfterRowsCameWithoutAWakeUp() {
        AdaptivePoll poll = new AdaptivePoll(Duration.ofMillis(20), Duration.ofMillis(1000));
        long now = 5_000_000_000L;
        poll.foundRows(true, now);
        long last = 0;
        for (int i = 0; i < 20; i++) {
            last = ms(poll.idlePauseNanos(now + i));
        }
        assertThat(last).isEqualTo(20);
        assertThat(ms(poll.idlePauseNanos(now + AdaptivePoll.UNANNOUNCED_WINDOW - 1))).isEqualTo(20);
        assertThat(ms(poll.idlePauseNanos(now + AdaptivePoll.UNANNOUNCED_WINDOW))).isEqualTo(1000);
    }

    @Test
    void shouldNeverGoBelowThePollIntervalWhenTheIdleIntervalIsShorter() {
        AdaptivePoll poll = new AdaptivePoll(Duration.ofMillis(20), Duration.ofMillis(5));
        long last = 0;
        for (int i = 0; i < 20; i++) {
            last = ms(poll.idlePauseNanos(0));
        }
        assertThat(last).isEqualTo(20);
    }

    private static long ms(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }
}
