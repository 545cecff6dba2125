package org.sagas.orchestrator.saga;

/**
 * How instances of one definition version move to another (docs/design.md, "Moving orders to
 * another version"): a mapping of the states of {@link #from()} to steps of {@link #to()}, declared
 * beside the newer definition. An instance whose state has no mapping stays where it is, with the
 * reason. Pure: no database, no clock; immutable and thread-safe.
 */
public interface SagaMigration<D> {

    /** The version instances are moved from. */
    SagaVersion from();

    /** The version they are moved to; same type. */
    SagaVersion to();

    /** Where {@code instance} (live, of {@link #from()}) would stand in {@link #to()}, or why it cannot move. */
    Plan plan(SagaInstance<D> instance);

    /** The mapping's answer for one instance. */
    sealed interface Plan {
        /** The instance moves to the step at {@code stepIndex} of the newer version, keeping its status. */
        record MoveTo(int stepIndex) implements Plan {}

        /** The instance's state has no mapping: {@code why}, for the operator. */
        record NoMapping(String why) implements Plan {}
    }
}
