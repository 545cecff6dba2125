package org.sagas.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.OptionalLong;
import org.junit.jupiter.api.Test;

class AdmissionTest {
    private static final long NOW = 1_000_000L;

    @Test
    void shouldWaitTheLatencyAndProceedWhenThereIsNoDeadline() {
        // Given no deadline, When a request arrives with 4 s of injected latency
        Admission admission = Admission.decide(NOW, 4_000, OptionalLong.empty());
        // Then it waits 4 s and does the work
        assertThat(admission).isEqualTo(new Admission(4_000, true));
    }

    @Test
    void shouldRefuseAtOnceWhenTheDeadlineHasPassedOnArrival() {
        // Given a deadline that passed a moment ago, When a request arrives
        Admission admission = Admission.decide(NOW, 4_000, OptionalLong.of(NOW - 1));
        // Then it is answered at once, without doing the work
        assertThat(admission).isEqualTo(new Admission(0, false));
    }

    @Test
    void shouldRefuseWhenTheDeadlineIsNow() {
        // Given a deadline that is exactly now, When a request arrives without latency
        Admission admission = Admission.decide(NOW, 0, OptionalLong.of(NOW));
        // Then nothing is left of its time: no work
        assertThat(admission).isEqualTo(new Admission(0, false));
    }

    @Test
    void shouldWaitOnlyUntilTheDeadlineWhenTheLatencyWouldOutlastIt() {
        // Given 300 ms left and 4 s of injected latency, When a request arrives
        Admission admission = Admission.decide(NOW, 4_000, OptionalLong.of(NOW + 300));
        // Then it waits until the deadline and does not do the work
        assertThat(admission).isEqualTo(new Admission(300, false));
    }

    @Test
    void shouldProceedAfterTheLatencyWhenItEndsBeforeTheDeadline() {
        // Given 500 ms left and 200 ms of injected latency, When a request arrives
        Admission admission = Admission.decide(NOW, 200, OptionalLong.of(NOW + 500));
        // Then it waits the latency and does the work
        assertThat(admission).isEqualTo(new Admission(200, true));
    }

    @Test
    void shouldProceedWhenTheLatencyEndsExactlyAtTheDeadline() {
        // Given a latency that ends exactly at the deadline
        Admission admission = Admission.decide(NOW, 500, OptionalLong.of(NOW + 500));
        // Then the caller is still waiting: the work is done
        assertThat(admission).isEqualTo(new Admission(500, true));
    }
}
