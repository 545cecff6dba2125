package org.sagas.orchestrator.saga;

/**
 * An instance runs a definition version this engine does not have: another build runs it
 * (docs/design.md, "A second version of a saga"). The claims of work never take one; this is
 * thrown only where an instance is read by id.
 */
public final class UnknownSagaVersion extends SagaException {
    private static final long serialVersionUID = 1L;

    public UnknownSagaVersion(SagaVersion version) {
        super("no saga definition registered for " + version);
    }
}
