package org.sagas.orchestrator.saga;

import java.util.Map;

/**
 * One saga definition version as the fleet sees it (docs/design.md, "A second version of a saga"):
 * whether this process has it and starts new instances on it, how many live processes have it, and
 * its live (not ended) instances by engine status. Immutable.
 *
 * @param inThisProcess this process's engine has the version
 * @param startsNew this process starts new instances of the type on it
 * @param liveProcesses processes whose heartbeat for it is fresh (this one included once it beat)
 * @param liveInstances live instances by status; a status without any is left out
 */
public record DefinitionCensus(SagaVersion definition, boolean inThisProcess, boolean startsNew, int liveProcesses,
        Map<SagaStatus, Long> liveInstances) {
    public DefinitionCensus {
        liveInstances = Map.copyOf(liveInstances);
    }

    /** All live instances of the version. */
    public long liveTotal() {
        return liveInstances.values().stream().mapToLong(Long::longValue).sum();
    }
}
