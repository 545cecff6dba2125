package org.sagas.orchestrator.saga;

import java.time.Instant;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.BiConsumer;
import org.jdbi.v3.core.Handle;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What an operator does to one saga: retry or cancel it, or move it to another version of its
 * definition. Decided from the saga as read, written under that version. Thread-safe.
 */
final class OperatorActions {
    private static final Logger log = LoggerFactory.getLogger(SagaEngine.class);

    private final EngineCore core;
    private final StepRunner runner;
    /** Declared migrations by (from, to). */
    private volatile Map<List<SagaVersion>, SagaMigration<?>> migrations = Map.of();

    OperatorActions(EngineCore core, StepRunner runner) {
        this.core = core;
        this.runner = runner;
    }

    synchronized void registerMigration(SagaMigration<?> migration) {
        SagaRegistry registry = core.registry();
        if (registry.find(migration.from()).isEmpty() || registry.find(migration.to()).isEmpty()
                || !migration.from().type().equals(migration.to().type())) {
            throw new SagaException("a migration from " + migration.from() + " to " + migration.to()
                    + " needs both versions registered, of one type");
        }
        Map<List<SagaVersion>, SagaMigration<?>> next = new HashMap<>(migrations);
        next.put(List.of(migration.from(), migration.to()), migration);
        migrations = Map.copyOf(next);
    }

    OperatorOutcome operate(UUID id, OperatorCommand command, String reason, String endReason, long stepBudgetMillis,
            BiConsumer<Handle, SagaInstance<?>> alsoInTransaction) {
        Optional<SagaInstance<?>> found = core.findKnown(id);
        if (found.isEmpty()) {
            return new OperatorOutcome.NotFound(id);
        }
        return operateOn(found.get(), command, reason, endReason, stepBudgetMillis, alsoInTransaction);
    }

    private <D> OperatorOutcome operateOn(SagaInstance<D> inst, OperatorCommand command, String reason,
            String endReason, long stepBudgetMillis, BiConsumer<Handle, SagaInstance<?>> alsoInTransaction) {
        Optional<String> refusal = SagaDecisions.operatorRefusal(inst);
        if (refusal.isPresent()) {
            return new OperatorOutcome.Refused(inst, refusal.get());
        }
        SagaDefinition<D> def = core.definitionOf(inst);
        Instant now = core.clock.instant();
        Transition<D> t = command == OperatorCommand.RETRY ? SagaDecisions.retry(def, inst, reason, now, core.timings)
                : SagaDecisions.cancel(def, inst, reason, endReason, now, core.timings);
        try {
            core.jdbi.useTransaction(h -> {
                core.write(h, def, t);
                alsoInTransaction.accept(h, t.after());
            });
        } catch (ConcurrentSagaUpdate e) {
            return new OperatorOutcome.Conflict(core.find(inst.id()).orElse(inst), e.getMessage());
        }
        core.committed(t);
        SagaInstance<D> after = t.after();
        if (EngineCore.isRunnable(after) && def.step(after.stepIndex()) instanceof SagaStep.Sync) {
            try {
                after = runner.advance(after, core.clock.millis() + stepBudgetMillis, (h, x) -> {}, null);
            } catch (ConcurrentSagaUpdate e) {
                log.info("saga {} moved on elsewhere after an operator's {}: {}", inst.id(), command, e.getMessage());
            } catch (RuntimeException e) {
                // Written and claimed: when the lease runs out the due-time runner runs it.
                log.warn("saga {} could not run right after an operator's {}; run after its lease: {}", inst.id(),
                        command, e.toString());
            }
        }
        return new OperatorOutcome.Applied(core.find(inst.id()).orElse(after));
    }

    MigrationOutcome migrate(UUID id, int toVersion, String reason, boolean dryRun,
            BiConsumer<Handle, SagaInstance<?>> alsoInTransaction) {
        Optional<SagaInstance<?>> found = core.findKnown(id);
        if (found.isEmpty()) {
            return new MigrationOutcome.NotFound(id);
        }
        return migrateOne(found.get(), toVersion, reason, dryRun, alsoInTransaction);
    }

    @SuppressWarnings("unchecked")
    private <D> MigrationOutcome migrateOne(SagaInstance<D> inst, int toVersion, String reason, boolean dryRun,
            BiConsumer<Handle, SagaInstance<?>> alsoInTransaction) {
        SagaVersion to = new SagaVersion(inst.type(), toVersion);
        Optional<String> ended = SagaDecisions.operatorRefusal(inst);
        if (ended.isPresent()) {
            return new MigrationOutcome.Refused(inst, ended.get());
        }
        if (inst.definition().equals(to)) {
            return new MigrationOutcome.Refused(inst, "it runs " + to + " already");
        }
        SagaMigration<D> migration = (SagaMigration<D>) migrations.get(List.of(inst.definition(), to));
        if (migration == null) {
            return new MigrationOutcome.Refused(inst, "no migration from " + inst.definition() + " to " + to
                    + " is declared");
        }
        SagaMigration.Plan plan = migration.plan(inst);
        if (plan instanceof SagaMigration.Plan.NoMapping none) {
            return new MigrationOutcome.Refused(inst, none.why());
        }
        SagaDefinition<D> toDef = (SagaDefinition<D>) core.definition(to);
        Transition<D> t = SagaDecisions.migrate(core.definitionOf(inst), toDef, inst, (SagaMigration.Plan.MoveTo) plan,
                reason);
        if (dryRun) {
            return new MigrationOutcome.Moved(inst, t.after());
        }
        try {
            core.jdbi.useTransaction(h -> {
                core.write(h, toDef, t);
                alsoInTransaction.accept(h, t.after());
            });
        } catch (ConcurrentSagaUpdate e) {
            return new MigrationOutcome.Conflict(core.find(inst.id()).orElse(inst), e.getMessage());
        }
        core.committed(t);
        log.info("saga {} moved from {} at {} to {} at {} by an operator", inst.id(), inst.definition(), inst.step(),
                to, t.after().step());
        return new MigrationOutcome.Moved(inst, t.after());
    }
}
