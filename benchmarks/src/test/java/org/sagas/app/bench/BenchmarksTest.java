package org.sagas.app.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sagas.app.ConfigurationError;
import org.sagas.app.Settings;

/**
 * The benchmarks' {@code --via} flag, shared by steady and cascade: parsed before anything is
 * started, so a wrong value costs nothing (no PostgreSQL, Kafka or product is brought up).
 */
class BenchmarksTest {

    @Test
    void shouldSendThroughKafkaWhenViaKafkaIsGivenInAnyCase() {
        assertThat(Benchmarks.via(Map.of("--via", "kafka"))).isEqualTo(Benchmarks.Via.KAFKA);
        assertThat(Benchmarks.via(Map.of("--via", "KAFKA"))).isEqualTo(Benchmarks.Via.KAFKA);
        assertThat(Benchmarks.via(Map.of())).isEqualTo(Benchmarks.Via.REST);
    }

    @Test
    void shouldRefuseTheCascadeBeforeStartingAnythingWhenViaIsUnknown() {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        PrintStream out = new PrintStream(printed, true, StandardCharsets.UTF_8);
        Settings settings = Settings.from(Map.<String, String>of()::get, Map.of());

        assertThatThrownBy(() -> Benchmarks.run(List.of("cascade", "full-degraded-mode"),
                Map.of("--via", "carrier-pigeon"), settings, out))
                .isInstanceOf(ConfigurationError.class)
                .hasMessage("--via must be rest or kafka, was 'carrier-pigeon'");
        assertThat(printed.toString(StandardCharsets.UTF_8)).isEmpty();
    }
}
