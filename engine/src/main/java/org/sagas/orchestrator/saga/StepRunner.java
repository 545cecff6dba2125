package org.sagas.orchestrator.saga;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.sagas.orchestrator.tracing.LogContext;
import org.sagas.orchestrator.tracing.Traceparent;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs synchronous steps and compensations, each outcome committed on its own, and the sagas that
 * fell due (a parked step to retry, a lease that ran out). Thread-safe.
 */
final class StepRunner {
    private static final Logger log = LoggerFactory.getLogger(SagaEngine.class);

    private final EngineCore core;

    StepRunner(EngineCore core) {
        this.core = core;
    }

    /** See {@link SagaEngine#advance(SagaInstance, long, BiConsumer, Consumer)}. */
    <D> SagaInstance<D> advance(SagaInstance<D> instance, long deadlineEpochMillis,
            BiConsumer<Handle, Transition<D>> inEachTransaction, Consumer<Handle> withdrawal) {
        SagaDefinition<D> def = core.definitionOf(instance);
        SagaInstance<D> current = instance;
        while (EngineCore.isRunnable(current)) {
            SagaStep<D> step = def.step(current.stepIndex());
            if (!(step instanceof SagaStep.Sync<D> sync)) {
                break;
            }
            StepResult<D> result = run(sync, current, new StepContext(current.id(), deadlineEpochMillis));
            if (withdrawal != null && current.version() == 0 && current.status() == SagaStatus.RUNNING
                    && result instanceof StepResult.Unavailable<D> unavailable && unavailable.untried()) {
                withdraw(current, withdrawal);
                throw new SagaWithdrawn(current.id(), unavailable.reason());
            }
            Transition<D> t = SagaDecisions.afterSyncStep(def, current, result, core.clock.instant(), core.timings);
            boolean goesOn = t.runsOn() && def.step(t.after().stepIndex()) instanceof SagaStep.Sync;
            core.jdbi.useTransaction(h -> {
                core.write(h, def, t);
                inEachTransaction.accept(h, t);
            });
            core.committed(t);
            current = t.after();
            if (!goesOn) {
                break;
            }
        }
        return current;
    }

    private void withdraw(SagaInstance<?> untried, Consumer<Handle> withdrawal) {
        core.jdbi.useTransaction(h -> {
            if (!SagaStore.withdraw(h, untried.id(), untried.version())) {
                throw new ConcurrentSagaUpdate(untried.id(), untried.version());
            }
            withdrawal.accept(h);
        });
    }

    /** Runs the step's action (or compensation); an exception becomes a typed {@link StepResult.Failed}. */
    private <D> StepResult<D> run(SagaStep.Sync<D> sync, SagaInstance<D> current, StepContext context) {
        boolean compensating = current.status() == SagaStatus.COMPENSATING;
        try {
            return compensating ? sync.compensation().run(current.data(), context)
                    : sync.action().run(current.data(), context);
        } catch (RuntimeException e) {
            log.error("saga {} {} {} threw (retry {} of {} next, then an incident): {}", current.id(),
                    compensating ? "compensation of" : "step", current.step(), current.stepRetries() + 1,
                    core.timings.stepRetries(), e.toString(), e);
            return StepResult.failed(Reason.of(Reason.STEP_FAILED, e.toString()));
        }
    }

    /** Goes on at once with a saga a reply or an expiry moved, when its next step runs here. */
    <D> void resumeInline(Applied<D> applied) {
        if (applied.transition().runsOn()) {
            try {
                advance(applied.transition().after(), core.clock.millis() + 2_000, (h, t) -> {}, null);
            } catch (ConcurrentSagaUpdate e) {
                log.info("saga {} moved on elsewhere: {}", applied.transition().after().id(), e.getMessage());
            }
        }
    }

    /** See {@link SagaEngine#runDue(int, Set, String, long, Executor)}. */
    int runDue(int limit, Set<String> skipParkedOn, String onlyParkedOn, long stepBudgetMillis, Executor executor) {
        Instant now = core.clock.instant();
        Instant lease = now.plus(core.timings.lease());
        List<Claimed> claimed = core.jdbi.inTransaction(h -> {
            List<Claimed> list = new ArrayList<>();
            for (SagaStore.Row row : SagaStore.lockDue(h, now, limit, skipParkedOn, onlyParkedOn,
                    core.registry().known())) {
                SagaStore.claim(h, row.id(), row.version(), lease);
                list.add(new Claimed(row.as(core.definition(row.definition())).claimed(lease), row.traceparent()));
            }
            return list;
        });
        List<CompletableFuture<Void>> runs = new ArrayList<>();
        for (Claimed c : claimed) {
            runs.add(CompletableFuture.runAsync(() -> runClaimed(c, core.clock.millis() + stepBudgetMillis), executor));
        }
        CompletableFuture.allOf(runs.toArray(CompletableFuture[]::new)).join();
        return claimed.size();
    }

    /** See {@link SagaEngine#makeDue}. */
    int makeDue(String dependency) {
        return core.jdbi.withHandle(h -> SagaStore.known(h.createUpdate("UPDATE saga_instance SET next_attempt_at"
                        + " = :now WHERE parked_on = :dependency AND next_attempt_at > :now" + SagaStore.KNOWN),
                        core.registry().known())
                .bind("dependency", dependency).bind("now", java.sql.Timestamp.from(core.clock.instant())).execute());
    }

    /** A claimed instance and the trace that created it (null when untraced). */
    private record Claimed(SagaInstance<?> instance, String origin) {}

    /**
     * Runs a claimed saga; when tracing is on, in a new trace whose root span links to the trace
     * that created the saga: a resume is its own story, minutes or hours after the request.
     */
    private void runClaimed(Claimed claimed, long deadline) {
        SagaInstance<?> instance = claimed.instance();
        Span span = core.tracing.on() ? core.tracing.startLinked("saga " + instance.type() + " resume",
                Traceparent.parse(claimed.origin())) : null;
        try (Scope trace = span != null ? span.makeCurrent() : Scope.noop();
                LogContext logged = LogContext.of(instance.id())) {
            if (span != null) {
                span.setAttribute("saga.id", instance.id().toString());
                span.setAttribute("saga.step", instance.step());
            }
            runClaimed(instance, deadline);
        } finally {
            if (span != null) {
                span.end();
            }
        }
    }

    private <D> void runClaimed(SagaInstance<D> instance, long deadline) {
        try {
            SagaInstance<D> after = advance(instance, deadline, (h, t) -> {}, null);
            if (core.tracing.on()) {
                Span.current().setAttribute("saga.status", after.label());
            }
        } catch (ConcurrentSagaUpdate e) {
            log.info("saga {} moved on elsewhere: {}", instance.id(), e.getMessage());
        } catch (RuntimeException e) {
            // Not the step (advance turns its exceptions into results) but writing it, e.g. the
            // database: left as claimed, its lease runs out and it is tried again; never dropped.
            log.error("saga {} step {} could not be written; retried after the lease: {}", instance.id(),
                    instance.step(), e.toString(), e);
        }
    }
}
