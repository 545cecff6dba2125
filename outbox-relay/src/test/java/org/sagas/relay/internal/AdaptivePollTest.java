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

    private static long ms(long nanos) {
        return Duration.ofNanos(nanos).toMillis();
    }
}
