package org.sagas.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

class RelayBenchmarkIT {

    /**
     * The full benchmark, only on request:
     * {@code ./mvnw -B -pl relay-bench -am verify -Drelay.bench=true -Dit.test=RelayBenchmarkIT}.
     */
    @Test
    @EnabledIfSystemProperty(named = "relay.bench", matches = "true")
    void shouldMeetTheRelayTargetsOnThisMachine() {
        Map<String, Object> result = RelayBenchmarkRunner.run(Path.of("target", "relay-benchmark.json"),
                RelayBenchmark.Options.defaults());
        assertThat(((Number) result.get("events_per_second")).doubleValue()).isGreaterThanOrEqualTo(20_000);
        assertThat(((Number) result.get("p99_ms")).doubleValue()).isLessThan(10);
        assertThat(((Number) result.get("outbox_bytes_after")).longValue()).isLessThan(50L * 1024 * 1024);
    }

    /** A small run of every phase, so the benchmark keeps working between full runs. */
    @Test
    void shouldRunEveryPhaseAndWriteTheFigures() throws Exception {
        Path file = Path.of("target", "relay-benchmark-smoke.json");
        RelayBenchmark.Options small = RelayBenchmark.Options.defaults()
                .withSteady(500, Duration.ofSeconds(2))
                .withWarmUp(Duration.ofMillis(500))
                .withPollOnlyPhase(false)
                .withDrainRows(20_000)
                .withSustainedEvents(30_000);
        Map<String, Object> result = RelayBenchmarkRunner.run(file, small);
        assertThat(result).containsKeys("events_per_second", "p99_ms", "p50_ms", "max_ms", "outbox_bytes_after");
        assertThat(java.nio.file.Files.readString(file)).contains("\"events_per_second\"", "\"p99_ms\"");
    }
}
