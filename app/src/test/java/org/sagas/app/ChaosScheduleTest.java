package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A chaos run's faults come from its seed alone, one after another, all undone before its end. */
class ChaosScheduleTest {
    private static final List<String> PROCESSES = List.of("relay-1", "relay-2", "api-1", "api-2", "saga-worker-1");

    @Test
    void shouldDrawTheSameFaultsFromTheSameSeed() {
        assertThat(Chaos.schedule(42, Duration.ofSeconds(300), PROCESSES, 3))
                .isEqualTo(Chaos.schedule(42, Duration.ofSeconds(300), PROCESSES, 3))
                .isNotEqualTo(Chaos.schedule(43, Duration.ofSeconds(300), PROCESSES, 3));
    }

    @Test
    void shouldKeepFaultsApartAndUndoneBeforeTheEnd() {
        List<Chaos.Fault> faults = Chaos.schedule(7, Duration.ofSeconds(300), PROCESSES, 3);
        assertThat(faults).hasSizeGreaterThan(5);
        for (int i = 1; i < faults.size(); i++) {
            Chaos.Fault before = faults.get(i - 1);
            assertThat(faults.get(i).atMs()).isGreaterThan(before.atMs() + before.lastsMs());
        }
        Chaos.Fault last = faults.get(faults.size() - 1);
        assertThat(last.atMs() + last.lastsMs()).isLessThanOrEqualTo(295_000);
    }

    @Test
    void shouldNotKillABrokerOfAClusterThatCannotLoseOne() {
        for (long seed = 0; seed < 50; seed++) {
            assertThat(Chaos.schedule(seed, Duration.ofSeconds(120), PROCESSES, 1))
                    .noneMatch(f -> f.kind() == Chaos.Kind.KILL_BROKER);
        }
    }
}
