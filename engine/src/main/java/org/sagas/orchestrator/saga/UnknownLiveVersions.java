package org.sagas.orchestrator.saga;

import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Live instances run a definition version that no running process has ({@link
 * SagaFleet#checkLiveVersions}): a build that has it must run (docs/operations.md, "A saga version no
 * process knows").
 */
public final class UnknownLiveVersions extends SagaException {
    private static final long serialVersionUID = 1L;

    private final transient Map<SagaVersion, Long> unknown;

    public UnknownLiveVersions(Map<SagaVersion, Long> unknown, Set<SagaVersion> known) {
        super("refusing to start: " + unknown.entrySet().stream()
                .map(e -> e.getValue() + " live saga(s) of " + e.getKey())
                .collect(Collectors.joining(", ")) + " run a definition version that neither this build (it has "
                + known + ") nor any live process has; deploy the build that has it (docs/operations.md,"
                + " \"A saga version no process knows\")");
        this.unknown = Map.copyOf(unknown);
    }

    /** Each unknown version and how many live instances run it. */
    public Map<SagaVersion, Long> unknown() {
        return unknown;
    }
}
