package org.sagas.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sagas.orchestrator.Json;

/** Several cold runs summed up as a headline: median, min and max, every run listed, failed ones too. */
class RunSeriesTest {
    @TempDir
    Path dir;

    @Test
    void shouldGiveTheMedianMinAndMaxOfTheRunsThatSucceededAndListTheOneThatFailed() throws Exception {
        // Given three runs of a steady benchmark (rows by layout) and a fourth that failed
        Path one = result("one", 20.0, 30.5);
        Path two = result("two", 26.0, 31.5);
        Path three = result("three", 23.0, 40.0);
        List<RunSeries.Run> runs = List.of(new RunSeries.Run(1, 0, one), new RunSeries.Run(2, 0, two),
                new RunSeries.Run(3, 1, dir.resolve("never-written.json")), new RunSeries.Run(4, 0, three));

        // When they are summed up
        RunSeries series = RunSeries.of("steady", runs);

        // Then each figure is the median of the three, with its spread, per row
        assertThat(series.failed()).isEqualTo(1);
        assertThat(series.spreads().get("[0].product_cpu_ms_per_order"))
                .isEqualTo(new RunSeries.Spread(23.0, 20.0, 26.0, 3));
        assertThat(series.spreads().get("[1].submit_p99_ms")).isEqualTo(new RunSeries.Spread(31.5, 30.5, 40.0, 3));
        // And a statement list is not a figure
        assertThat(series.spreads().keySet()).noneMatch(path -> path.contains("statements"));

        // And the file lists every run, the failed one too
        Path summary = dir.resolve("steady-runs.json");
        series.write(summary);
        JsonNode doc = Json.mapper().readTree(Files.readString(summary));
        assertThat(doc.get("cold_runs").asInt()).isEqualTo(4);
        assertThat(doc.get("failed_runs").asInt()).isEqualTo(1);
        assertThat(doc.get("runs").get(2).get("succeeded").asBoolean()).isFalse();
        assertThat(doc.get("median_min_max").get("[0].product_cpu_ms_per_order").get("median").asDouble())
                .isEqualTo(23.0);

        // And the table shows the failed run's column marked, and the median
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        series.print(new PrintStream(printed, true, StandardCharsets.UTF_8));
        String table = printed.toString(StandardCharsets.UTF_8);
        assertThat(table).contains("4 cold runs, 1 failed").contains("run 3 ✗")
                .containsPattern("\\[0\\]\\.product_cpu_ms_per_order\\s+20\\.0\\s+26\\.0\\s+—\\s+23\\.0\\s+23\\.0\\s+20\\.0\\s+26\\.0");
    }

    @Test
    void shouldTakeTheMeanOfTheMiddleTwoForAnEvenNumberOfRuns() {
        assertThat(RunSeries.spread(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(new RunSeries.Spread(2.5, 1.0, 4.0, 4));
    }

    private Path result(String name, double cpu, double p99) throws Exception {
        String json = "[{\"layout\":\"hot-sku\",\"product_cpu_ms_per_order\":" + cpu + ",\"submit_p99_ms\":" + (p99 - 1)
                + ",\"product_statements\":[{\"statement\":\"SELECT 1\",\"calls_per_order\":" + cpu + "}]},"
                + "{\"layout\":\"spread-skus\",\"product_cpu_ms_per_order\":" + (cpu + 1) + ",\"submit_p99_ms\":" + p99
                + "}]";
        return Files.writeString(dir.resolve(name + ".json"), json);
    }
}
