package org.sagas.app.metrics;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import java.util.ArrayList;
import java.util.List;
import org.sagas.orchestrator.saga.DefinitionCensus;
import org.sagas.orchestrator.saga.SagaFleet;
import org.sagas.orchestrator.saga.SagaStatus;

/**
 * {@code saga_live_instances{type,version,status}}: live (not ended) saga instances per definition
 * version and engine status, and {@code saga_definition_processes{type,version}}: the live processes
 * that have each version, as the fleet counts them in PostgreSQL (docs/design.md, "A second version
 * of a saga"). Every status of a known version is exported, 0 when none, so a version draining to
 * zero shows as such. {@link #refresh} runs with the process's versions heartbeat. Thread-safe.
 */
public final class SagaVersionGauges {
    private final SagaFleet fleet;
    private final MultiGauge live;
    private final MultiGauge processes;

    public SagaVersionGauges(SagaFleet fleet, MeterRegistry registry) {
        this.fleet = fleet;
        this.live = MultiGauge.builder("saga.live.instances")
                .description("Live saga instances per definition version and engine status").register(registry);
        this.processes = MultiGauge.builder("saga.definition.processes")
                .description("Live processes that have a saga definition version").register(registry);
    }

    /** Reads the counts now; when that fails the gauges keep their last values and this throws. */
    public void refresh() {
        List<MultiGauge.Row<?>> liveRows = new ArrayList<>();
        List<MultiGauge.Row<?>> processRows = new ArrayList<>();
        for (DefinitionCensus c : fleet.census()) {
            Tags version = Tags.of("type", c.definition().type(), "version",
                    Integer.toString(c.definition().version()));
            for (SagaStatus s : SagaStatus.values()) {
                if (!s.isTerminal()) {
                    liveRows.add(MultiGauge.Row.of(version.and("status", s.name()),
                            c.liveInstances().getOrDefault(s, 0L)));
                }
            }
            processRows.add(MultiGauge.Row.of(version, c.liveProcesses()));
        }
        live.register(liveRows, true);
        processes.register(processRows, true);
    }
}
