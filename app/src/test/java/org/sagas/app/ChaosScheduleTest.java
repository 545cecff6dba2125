package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A chaos run's faults come from its seed alone, one after another, all undone before its end; its
 * results go where it is told, else outside the tracked files.
 */
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

    @Test
    void shouldWriteItsResultsOutsideTrackedFilesUnlessToldWhere() {
        Settings scratch = Settings.from(Map.<String, String>of()::get, Map.of());
        Settings kept = Settings.from(Map.<String, String>of()::get, Map.of("--data-dir", "/tmp/chaos-data"));

        assertThat(Chaos.resultsFile(Map.of(), scratch, 7)).isEqualTo(Path.of("target", "bench-results", "chaos-7.json"));
        assertThat(Chaos.resultsFile(Map.of(), kept, 7)).isEqualTo(Path.of("/tmp/chaos-data", "chaos-7.json"));
        assertThat(Chaos.resultsFile(Map.of("--out", "/tmp/run.json"), kept, 7)).isEqualTo(Path.of("/tmp/run.json"));
        assertThat(Chaos.resultsFile(Map.of("--results", "bench/results"), scratch, 7))
                .isEqualTo(Path.of("bench", "results", "chaos.json"));
    }
}
