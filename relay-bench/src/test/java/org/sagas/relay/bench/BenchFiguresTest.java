package org.sagas.relay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class BenchFiguresTest {

    @Test
    void shouldComputeNearestRankPercentilesInMilliseconds() {
        long[] nanos = new long[100];
        for (int i = 0; i < 100; i++) {
            nanos[i] = (i + 1) * 1_000_000L;
        }
        Latencies l = Latencies.of(nanos);
        assertThat(l.count()).isEqualTo(100);
        assertThat(l.p50Ms()).isEqualTo(50.0);
        assertThat(l.p90Ms()).isEqualTo(90.0);
        assertThat(l.p99Ms()).isEqualTo(99.0);
        assertThat(l.maxMs()).isEqualTo(100.0);
    }

    @Test
    void shouldWriteFlatJson() {
        Map<String, Object> values = new LinkedHashMap<>();
        values.put("events_per_second", 45_000L);
        values.put("p99_ms", 3.25);
        values.put("note", "a \"quoted\" word");
        values.put("missing", Double.NaN);
        assertThat(Json.write(values)).isEqualTo("{\n  \"events_per_second\": 45000,\n  \"p99_ms\": 3.25,\n"
                + "  \"note\": \"a \\\"quoted\\\" word\",\n  \"missing\": null\n}\n");
    }
}
