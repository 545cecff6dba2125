package org.sagas.orchestrator.saga;

import java.util.Objects;

/**
 * Which definition an instance runs: its saga type and that definition's version (docs/design.md,
 * "A second version of a saga"), stored in {@code saga_instance.saga_type} and {@code
 * definition_version}. The key of the {@link SagaRegistry}. Immutable.
 */
public record SagaVersion(String type, int version) {
    public SagaVersion {
        Objects.requireNonNull(type, "type");
        if (version < 1) {
            throw new IllegalArgumentException("a definition version is at least 1, got " + version);
        }
    }

    public static SagaVersion of(SagaDefinition<?> definition) {
        return new SagaVersion(definition.type(), definition.version());
    }

    @Override
    public String toString() {
        return type + " v" + version;
    }
}
