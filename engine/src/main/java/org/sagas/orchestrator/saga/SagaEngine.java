package org.sagas.orchestrator.saga;

import io.opentelemetry.context.Context;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executor;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.tracing.Tracing;

/**
 * Runs saga definitions: writes every transition (instance row with a version check, history row,
 * outbox rows) in one transaction, runs synchronous steps outside any transaction, resumes sagas
 * on replies, on due times, on step timeouts and on expiry. The decisions themselves are in
 * {@link SagaDecisions}; the work is done by one small class per responsibility behind this entry
 * (steps and due sagas, replies, housekeeping, operators' actions). Thread-safe; several engines
 * (processes) may share a database.
 */
public final class SagaEngine {
    /**
     * What became of a consumed reply. {@code DUPLICATE}: its message id was in the inbox (only for
     * {@link #handleReply}); a redelivery to {@link #handleReplies} is {@code NOT_AWAITED}. {@code
     * UNKNOWN_VERSION}: the saga exists but runs a definition version this engine does not have; nothing
     * was read or written, and the reply is for a process that has it (docs/design.md, "A second
     * version of a saga").
     */
    public enum ReplyOutcome { APPLIED, DUPLICATE, UNKNOWN_SAGA, NOT_AWAITED, UNKNOWN_VERSION }

    /**
     * A reply and the saga it answers; {@code trace} is the context its consumer continues
     * ({@link Context#root()} when untraced): the transition it causes, and the outbox rows it
     * writes, belong to that trace.
     */
    public record Reply(IncomingMessage message, UUID sagaId, Context trace) {
        public Reply(IncomingMessage message, UUID sagaId) {
            this(message, sagaId, Context.root());
        }
    }

    private final EngineCore core;
    private final StepRunner steps;
    private final ReplyHandler replies;
    private final Housekeeping housekeeping;
    private final OperatorActions operators;

    /**
     * @param afterOutboxWrite called after a commit that wrote outbox rows (wakes an in-process relay)
     */
    public SagaEngine(Jdbi jdbi, Clock clock, SagaTimings timings, Runnable afterOutboxWrite) {
        this(jdbi, clock, timings, afterOutboxWrite, Tracing.off());
    }

    /**
     * @param tracing when on, a saga run later than its creation (a parked one resumed, one taken
     *     over after a lease) runs in a new trace linked to the one that created it (ADR 0018)
     */
    public SagaEngine(Jdbi jdbi, Clock clock, SagaTimings timings, Runnable afterOutboxWrite, Tracing tracing) {
        this.core = new EngineCore(jdbi, clock, timings, afterOutboxWrite, tracing);
        this.steps = new StepRunner(core);
        this.replies = new ReplyHandler(core, steps);
        this.housekeeping = new Housekeeping(core, steps);
        this.operators = new OperatorActions(core, steps);
    }

    // ---- definitions

    /**
     * Adds a version of a definition; several versions of one type run side by side, each instance
     * on its own ({@link SagaRegistry#with}).
     */
    public <D> SagaEngine register(SagaDefinition<D> definition) {
        core.registry(r -> r.with(definition));
        return this;
    }

    /**
     * Adds the way instances move from one registered version to another ({@link #migrate}).
     *
     * @throws SagaException when either version is not registered, or they are of different types
     */
    public SagaEngine registerMigration(SagaMigration<?> migration) {
        operators.registerMigration(migration);
        return this;
    }

    /** Starts new instances of {@code type} on {@code version} (registered already; {@link SagaRegistry#startingOn}). */
    public SagaEngine startOn(String type, int version) {
        core.registry(r -> r.startingOn(type, version));
        return this;
    }

    /** The definitions this engine runs, and the version each type starts on. */
    public SagaRegistry registry() {
        return core.registry();
    }

    /**
     * The definition new instances of {@code type} start on ({@link #startOn}).
     *
     * @throws SagaException when no version of {@code type} is registered, or it reads another class
     */
    @SuppressWarnings("unchecked")
    public <D> SagaDefinition<D> starting(String type, Class<D> dataType) {
        SagaDefinition<?> def = core.registry().starting(type);
        if (def.dataType() != dataType) {
            throw new SagaException("saga " + SagaVersion.of(def) + " reads " + def.dataType().getName() + ", not "
                    + dataType.getName());
        }
        return (SagaDefinition<D>) def;
    }

    /** Called after every committed transition (metrics, tests). */
    public void onTransition(Consumer<SagaInstance<?>> listener) {
        core.onTransition(listener);
    }

    /** Called after an incident was raised (metrics, tests), with the saga id and the cause. */
    public void onIncident(BiConsumer<UUID, IncidentCause> listener) {
        core.onIncident(listener);
    }

    public SagaTimings timings() {
        return core.timings;
    }

    // ---- starting and running

    /**
     * Creates an instance at its first step in one transaction with {@code alsoInTransaction}
     * (e.g. the order row and its idempotency record), on {@code def}'s version ({@link #starting}
     * names the default one). Does not run the step: call {@link #advance}.
     *
     * @throws SagaException when {@code def} is not registered with this engine
     */
    public <D> SagaInstance<D> start(SagaDefinition<D> def, UUID id, D data, Consumer<Handle> alsoInTransaction) {
        if (core.registry().find(SagaVersion.of(def)).orElse(null) != def) {
            throw new SagaException("saga " + SagaVersion.of(def) + " is not registered with this engine");
        }
        Transition<D> t = SagaDecisions.beginTransition(def, id, data, core.clock.instant(), core.timings);
        core.jdbi.useTransaction(h -> {
            alsoInTransaction.accept(h);
            SagaStore.insert(h, t, def.events(t));
            def.onTransition(h, t);
        });
        core.committed(t);
        return t.after();
    }

    /**
     * Runs the instance's synchronous steps (or compensations) one after the other until the saga
     * waits (for a reply, a dependency) or ends, with the definition of the version it runs. Each
     * step's outcome commits on its own.
     *
     * @throws ConcurrentSagaUpdate when another runner moved the instance meanwhile
     */
    public <D> SagaInstance<D> advance(SagaInstance<D> instance, long deadlineEpochMillis) {
        return steps.advance(instance, deadlineEpochMillis, (h, t) -> {}, null);
    }

    /**
     * As {@link #advance(SagaInstance, long)}, running {@code inEachTransaction}
     * inside the transaction of each transition it commits (e.g. to learn the first one's outcome).
     * A step that throws is a {@link StepResult.Failed}: tried again after a back-off, a bounded
     * number of times ({@link SagaTimings#stepRetries()}), then an incident; it never escapes here.
     */
    public <D> SagaInstance<D> advance(SagaInstance<D> instance, long deadlineEpochMillis,
            BiConsumer<Handle, Transition<D>> inEachTransaction) {
        return steps.advance(instance, deadlineEpochMillis, inEachTransaction, null);
    }

    /**
     * As {@link #advance(SagaInstance, long, BiConsumer)} for the request that has just
     * {@linkplain #start started} the instance: if its first step comes back {@linkplain
     * StepResult.Unavailable#untried untried} (nothing was sent, for the product's own want of
     * capacity), the instance is deleted with its history, and {@code withdrawal} run, in one
     * transaction, instead of being parked.
     *
     * @param withdrawal what else goes with the instance (its idempotency key); null never withdraws
     * @throws SagaWithdrawn when it was withdrawn
     */
    public <D> SagaInstance<D> advance(SagaInstance<D> instance, long deadlineEpochMillis,
            BiConsumer<Handle, Transition<D>> inEachTransaction, Consumer<Handle> withdrawal) {
        return steps.advance(instance, deadlineEpochMillis, inEachTransaction, withdrawal);
    }

    /**
     * Claims up to {@code limit} due instances and runs them: resumes after a crash (lease ran
     * out), retries parked steps. {@code skipParkedOn} leaves out sagas parked on dependencies
     * known to be down; {@code onlyParkedOn}, when not null, takes only those parked on it.
     *
     * @return how many instances were run
     */
    public int runDue(int limit, Set<String> skipParkedOn, String onlyParkedOn, long stepBudgetMillis) {
        return steps.runDue(limit, skipParkedOn, onlyParkedOn, stepBudgetMillis, Runnable::run);
    }

    /**
     * As {@link #runDue(int, Set, String, long)}, running the claimed instances on {@code executor}
     * (in parallel) and returning once all of them ran.
     */
    public int runDue(int limit, Set<String> skipParkedOn, String onlyParkedOn, long stepBudgetMillis,
            Executor executor) {
        return steps.runDue(limit, skipParkedOn, onlyParkedOn, stepBudgetMillis, executor);
    }

    /**
     * Makes every saga parked on {@code dependency} due now (the dependency is back), instead of
     * at its next retry time. Resuming still goes oldest first, at the caller's pace. A saga a
     * runner holds at this moment may be run twice; participant keys and the version check keep
     * that to one effect.
     *
     * @return how many sagas became due
     */
    public int makeDue(String dependency) {
        return steps.makeDue(dependency);
    }

    // ---- replies

    /**
     * Applies a reply to the saga it answers ({@code correlationId} = saga id), recording the
     * message id in the inbox of {@code consumer} in the same transaction; then runs whatever became
     * due. For callers whose message ids say who asked (an operator's settlement, the reconciler's):
     * the inbox tells a request made twice ({@link ReplyOutcome#DUPLICATE}) from a late one.
     */
    public ReplyOutcome handleReply(String consumer, IncomingMessage message, UUID sagaId) {
        return replies.handle(consumer, List.of(new Reply(message, sagaId))).get(0);
    }

    /**
     * Applies {@code replies} in their order in one transaction: the sagas they answer are locked (in
     * id order) with one statement, then each saga moves on; a saga answered twice sees its first
     * reply's effect. No inbox row: a reply is applied only while its saga waits at an asynchronous
     * step that accepts it, and applying it moves the saga on in the same transaction, so a
     * redelivered reply finds the saga past that wait ({@link ReplyOutcome#NOT_AWAITED}) and has no
     * second effect (docs/decisions/0019). After the commit, runs whatever became due; a failure
     * there is logged and left to the due-time runner.
     *
     * @return what became of each reply, in the same order
     */
    public List<ReplyOutcome> handleReplies(List<Reply> replies) {
        return this.replies.handle(null, replies);
    }

    // ---- housekeeping

    /** Marks asynchronous steps whose reply is late; they keep waiting, visibly. */
    public int timeOutSteps(int limit) {
        return housekeeping.timeOutSteps(limit);
    }

    /** Gives up on sagas parked past their time to live: compensates and ends them. */
    public int expireParked(int limit) {
        return housekeeping.expireParked(limit);
    }

    /**
     * Sends the current asynchronous step's command of saga {@code id} again (same data, so the
     * same participant key: at most one effect), in one transaction with its history row.
     *
     * @return the saga after it, or empty when it is no longer waiting for a reply
     */
    public Optional<SagaInstance<?>> resendCommand(UUID id, String why) {
        return housekeeping.resendCommand(id, why);
    }

    /**
     * Marks saga {@code id} as an incident (docs/design.md, "No saga left behind"), for callers outside its own
     * steps: a consumer that dead-lettered its message, a reconciler that gave up. Needs no
     * definition (the saga's may be gone). Logged once, with the saga (order) id and the cause;
     * raising the cause it already has changes nothing.
     *
     * @return true when the mark is new; false for an unknown or ended saga, or the same cause again
     */
    public boolean raiseIncident(UUID id, IncidentCause cause, String detail) {
        return housekeeping.raiseIncident(id, cause, detail);
    }

    /**
     * Raises {@link IncidentCause#COMPENSATION_STALLED} on up to {@code limit} sagas compensating,
     * parked on a participant, since longer than {@code stalledAfter} (by their label's time) and
     * with no incident yet. They are still retried; the incident tells an operator. Returns how many.
     */
    public int flagStalledCompensations(Duration stalledAfter, int limit) {
        return housekeeping.flagStalledCompensations(stalledAfter, limit);
    }

    /** Sagas that cannot go on without an operator, per cause (through the partial incident index). */
    public Map<IncidentCause, Long> incidentCounts() {
        return housekeeping.incidentCounts();
    }

    // ---- operators

    /**
     * Carries out an operator's command on saga {@code id}: decides from the saga as read, writes
     * the transition guarded by that version (with {@code alsoInTransaction}, e.g. the audit row,
     * in the same transaction; it gets the saga as written), then runs at once whatever became runnable — a retried step, the
     * first compensation of a cancel. A saga moved by someone else between the read and the write
     * is a {@link OperatorOutcome.Conflict}, nothing written. Safe against runners and replies in
     * any process: the version check decides who wins. A saga of a definition version this engine
     * lacks is {@link OperatorOutcome.NotFound} here: nothing read as its data, nothing written.
     *
     * @param reason the history row's reason
     * @param endReason for {@link OperatorCommand#CANCEL}: what the end says to customers
     * @param stepBudgetMillis how long the step run inline may take
     */
    public OperatorOutcome operate(UUID id, OperatorCommand command, String reason, String endReason,
            long stepBudgetMillis, BiConsumer<Handle, SagaInstance<?>> alsoInTransaction) {
        return operators.operate(id, command, reason, endReason, stepBudgetMillis, alsoInTransaction);
    }

    /**
     * Moves saga {@code id} to version {@code toVersion} of its type through the registered mapping
     * (docs/design.md, "Moving orders to another version"), under the version check, with its history
     * row and {@code alsoInTransaction} (the audit) in one transaction; with {@code dryRun}, only says
     * what it would become. A saga that has ended, is on that version, has no mapping, or whose state
     * the mapping refuses is left as it is ({@link MigrationOutcome.Refused}, with the reason).
     */
    public MigrationOutcome migrate(UUID id, int toVersion, String reason, boolean dryRun,
            BiConsumer<Handle, SagaInstance<?>> alsoInTransaction) {
        return operators.migrate(id, toVersion, reason, dryRun, alsoInTransaction);
    }

    /**
     * The instance as stored now, if any.
     *
     * @throws UnknownSagaVersion when it runs a definition version this engine does not have
     */
    public Optional<SagaInstance<?>> find(UUID id) {
        return core.find(id);
    }
}
