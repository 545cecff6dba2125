package org.sagas.orchestrator.resilience;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class MovingAverageTest {
    @Test
    void shouldBeUnknownUntilEnoughSamplesThenTheirPlainMean() {
        // Given an average whose samples weigh 5 % once warmed
        MovingAverage average = new MovingAverage(0.05);

        // When a cold start's 1 000 ns sample is followed by quick ones of 100 ns
        average.record(1_000);
        for (int i = 1; i < MovingAverage.KNOWN_AFTER; i++) {
            assertThat(average.nanos()).as("after %d samples", i).isEmpty();
            average.record(100);
        }

        // Then it is known only now, as the plain mean of them all, not the first sample decayed by 5 %
        assertThat(average.nanos()).hasValue((1_000 + 100.0 * (MovingAverage.KNOWN_AFTER - 1))
                / MovingAverage.KNOWN_AFTER);
    }

    @Test
    void shouldWeighEachSampleByItsOwnWeightOnceThePlainMeanWouldWeighLess() {
        // Given an average weighing 10 % and warmed over 20 samples of 100 ns
        MovingAverage average = new MovingAverage(0.1);
        for (int i = 0; i < 20; i++) {
            average.record(100);
        }

        // When a sample of 1 100 ns comes
        average.record(1_100);

        // Then it moves the average by a tenth of the difference
        assertThat(average.nanos().orElseThrow()).isCloseTo(200, org.assertj.core.data.Offset.offset(1e-9));
    }

    @Test
    void shouldRefuseAWeightOutsideZeroToOne() {
        assertThatThrownBy(() -> new MovingAverage(0)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new MovingAverage(1.5)).isInstanceOf(IllegalArgumentException.class);
    }
}
