package org.sagas.app.bench;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.sagas.orchestrator.Json;

class MachineSpeedTest {
    @Test
    void shouldDoTheSameWorkEveryTime() {
        // The reference is only a reference if every call (and every machine) does the same work
        assertThat(MachineSpeed.workload()).isEqualTo(MachineSpeed.workload());
    }

    @Test
    void shouldReadCpuAndWallTimeOfTheFastestRun() {
        MachineSpeed.Reading reading = MachineSpeed.measure();

        assertThat(reading.cpuMs()).isPositive();
        assertThat(reading.wallMs()).isPositive();
    }

    @Test
    void shouldAddTheMachineToEveryRowAndTheProductCostInReferenceRuns(@TempDir Path dir) throws Exception {
        // Given a benchmark's rows, one with the product's CPU per order, one without
        Path file = dir.resolve("steady.json");
        Files.writeString(file, "[{\"layout\":\"hot-sku\",\"product_cpu_ms_per_order\":25.0},{\"layout\":\"x\"}]");

        // When the readings before and after the run are added
        MachineSpeed.annotate(file, new MachineSpeed.Reading(50.0, 52.0), new MachineSpeed.Reading(60.0, 61.0));

        // Then each row carries them, and the cost in reference runs is against the reading before
        JsonNode rows = Json.mapper().readTree(file.toFile());
        assertThat(rows.get(0).path("machine").path("reference_cpu_ms_before").asDouble()).isEqualTo(50.0);
        assertThat(rows.get(0).path("machine").path("reference_cpu_ms_after").asDouble()).isEqualTo(60.0);
        assertThat(rows.get(0).path("machine").path("cores").asInt()).isPositive();
        assertThat(rows.get(0).path("product_cpu_per_order_in_reference_runs").asDouble()).isEqualTo(0.5);
        assertThat(rows.get(1).path("machine").isObject()).isTrue();
        assertThat(rows.get(1).has("product_cpu_per_order_in_reference_runs")).isFalse();
    }

    @Test
    void shouldAddTheMachineToAResultThatIsOneObject(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("throughput.json");
        Files.writeString(file, "{\"orders_per_second\":90.0}");

        MachineSpeed.annotate(file, new MachineSpeed.Reading(40.0, 41.0), new MachineSpeed.Reading(40.0, 41.0));

        assertThat(Json.mapper().readTree(file.toFile()).path("machine").path("reference_wall_ms_before").asDouble())
                .isEqualTo(41.0);
    }
}
