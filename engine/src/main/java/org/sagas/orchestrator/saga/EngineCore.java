package org.sagas.orchestrator.saga;

import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.tracing.Tracing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What every part of the engine shares: the database, the clock, the registered definitions, and the
 * one way a transition is written and, once committed, announced. Thread-safe.
 */
final class EngineCore {
    private static final Logger log = LoggerFactory.getLogger(SagaEngine.class);

    final Jdbi jdbi;
    final Clock clock;
    final SagaTimings timings;
    final Tracing tracing;
    private final Runnable afterOutboxWrite;
    private volatile SagaRegistry registry = SagaRegistry.empty();
    private final List<Consumer<SagaInstance<?>>> listeners = new CopyOnWriteArrayList<>();
    private final List<BiConsumer<UUID, IncidentCause>> incidentListeners = new CopyOnWriteArrayList<>();

    EngineCore(Jdbi jdbi, Clock clock, SagaTimings timings, Runnable afterOutboxWrite, Tracing tracing) {
        this.jdbi = jdbi;
        this.clock = clock;
        this.timings = timings;
        this.afterOutboxWrite = afterOutboxWrite;
        this.tracing = tracing;
    }

    SagaRegistry registry() {
        return registry;
    }

    synchronized void registry(java.util.function.UnaryOperator<SagaRegistry> change) {
        registry = change.apply(registry);
    }

    void onTransition(Consumer<SagaInstance<?>> listener) {
        listeners.add(listener);
    }

    void onIncident(BiConsumer<UUID, IncidentCause> listener) {
        incidentListeners.add(listener);
    }

    /** Writes {@code t} under its version check, with its history and outbox rows, inside {@code h}'s transaction. */
    <D> void write(Handle h, SagaDefinition<D> def, Transition<D> t) {
        SagaStore.update(h, t, def.events(t));
        def.onTransition(h, t);
    }

    /** After the commit of {@code t}: wakes the relay, reports an incident it raised, tells the listeners. */
    void committed(Transition<?> t) {
        if (!t.messages().isEmpty()) {
            afterOutboxWrite.run();
        }
        if (t.raisesIncident()) {
            Incident incident = t.after().incident();
            log.error("saga {} needs an operator: incident {} at {} while {} ({})", t.after().id(), incident.cause(),
                    t.after().step(), t.after().label(), incident.detail());
            incidentRaised(t.after().id(), incident.cause());
        }
        listeners.forEach(l -> l.accept(t.after()));
    }

    void incidentRaised(UUID id, IncidentCause cause) {
        incidentListeners.forEach(l -> l.accept(id, cause));
    }

    /**
     * The instance as stored now, if any.
     *
     * @throws UnknownSagaVersion when it runs a definition version this engine does not have
     */
    Optional<SagaInstance<?>> find(UUID id) {
        return jdbi.withHandle(h -> SagaStore.find(h, id).map(row -> row.as(definition(row.definition()))));
    }

    /** The instance as stored now, if it exists and this engine has its definition version. */
    Optional<SagaInstance<?>> findKnown(UUID id) {
        return jdbi.withHandle(h -> SagaStore.find(h, id).filter(row -> registry.find(row.definition()).isPresent())
                .map(row -> row.as(definition(row.definition()))));
    }

    /** The definition of the version {@code instance} runs: every move of an instance is decided by it. */
    @SuppressWarnings("unchecked")
    <D> SagaDefinition<D> definitionOf(SagaInstance<D> instance) {
        return (SagaDefinition<D>) definition(instance.definition());
    }

    SagaDefinition<?> definition(SagaVersion version) {
        return registry.find(version).orElseThrow(() -> new UnknownSagaVersion(version));
    }

    /** Makes {@code trace} current while tracing is on; nothing at all while it is off. */
    Scope inTrace(Context trace) {
        return tracing.on() ? trace.makeCurrent() : Scope.noop();
    }

    static boolean isRunnable(SagaInstance<?> s) {
        return s.status() == SagaStatus.RUNNING || s.status() == SagaStatus.PARKED
                || s.status() == SagaStatus.COMPENSATING;
    }
}
