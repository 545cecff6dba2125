package org.sagas.orchestrator.saga;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.persistence.Inbox;
import org.sagas.orchestrator.tracing.LogContext;
import org.sagas.orchestrator.tracing.Traceparent;
import org.sagas.orchestrator.tracing.Tracing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs saga definitions: writes every transition (instance row with a version check, history row,
 * outbox rows) in one transaction, runs synchronous steps outside any transaction, resumes sagas
 * on replies, on due times, on step timeouts and on expiry. The decisions themselves are in
 * {@link SagaDecisions}. Thread-safe; several engines (processes) may share a database.
 */
public final class SagaEngine {
    private static final Logger log = LoggerFactory.getLogger(SagaEngine.class);

    /**
     * What became of a consumed reply. {@code DUPLICATE}: its message id was in the inbox (only for
     * {@link #handleReply}); a redelivery to {@link #handleReplies} is {@code NOT_AWAITED}. {@code
     * UNKNOWN_VERSION}: the saga exists but runs a definition version this engine does not have; nothing
     * was read or written, and the reply is for a process that has it (docs/design.md, "A second
     * version of a saga").
     */
    public enum ReplyOutcome { APPLIED, DUPLICATE, UNKNOWN_SAGA, NOT_AWAITED, UNKNOWN_VERSION }

    private final Jdbi jdbi;
    private final Clock clock;
    private final SagaTimings timings;
    private final Runnable afterOutboxWrite;
    private final Tracing tracing;
    private volatile SagaRegistry registry = SagaRegistry.empty();
    /** Declared migrations by (from, to). */
    private volatile java.util.Map<java.util.List<SagaVersion>, SagaMigration<?>> migrations = java.util.Map.of();
    private final List<Consumer<SagaInstance<?>>> listeners = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<BiConsumer<UUID, IncidentCause>> incidentListeners =
            new java.util.concurrent.CopyOnWriteArrayList<>();

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
        this.jdbi = jdbi;
        this.clock = clock;
        this.timings = timings;
        this.afterOutboxWrite = afterOutboxWrite;
        this.tracing = tracing;
    }

    /**
     * Adds a version of a definition; several versions of one type run side by side, each instance
     * on its own ({@link SagaRegistry#with}).
     */
    public synchronized <D> SagaEngine register(SagaDefinition<D> definition) {
        registry = registry.with(definition);
        return this;
    }

    /**
     * Adds the way instances move from one registered version to another ({@link #migrate}).
     *
     * @throws SagaException when either version is not registered, or they are of different types
     */
    public synchronized SagaEngine registerMigration(SagaMigration<?> migration) {
        if (registry.find(migration.from()).isEmpty() || registry.find(migration.to()).isEmpty()
                || !migration.from().type().equals(migration.to().type())) {
            throw new SagaException("a migration from " + migration.from() + " to " + migration.to()
                    + " needs both versions registered, of one type");
        }
        java.util.Map<java.util.List<SagaVersion>, SagaMigration<?>> next = new java.util.HashMap<>(migrations);
        next.put(java.util.List.of(migration.from(), migration.to()), migration);
        migrations = java.util.Map.copyOf(next);
        return this;
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
        Optional<SagaInstance<?>> found = findKnown(id);
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
        SagaMigration<D> migration = (SagaMigration<D>) migrations.get(java.util.List.of(inst.definition(), to));
        if (migration == null) {
            return new MigrationOutcome.Refused(inst, "no migration from " + inst.definition() + " to " + to
                    + " is declared");
        }
        SagaMigration.Plan plan = migration.plan(inst);
        if (plan instanceof SagaMigration.Plan.NoMapping none) {
            return new MigrationOutcome.Refused(inst, none.why());
        }
        SagaDefinition<D> toDef = (SagaDefinition<D>) definition(to);
        Transition<D> t = SagaDecisions.migrate(definitionOf(inst), toDef, inst, (SagaMigration.Plan.MoveTo) plan,
                reason);
        if (dryRun) {
            return new MigrationOutcome.Moved(inst, t.after());
        }
        try {
            jdbi.useTransaction(h -> {
                write(h, toDef, t);
                alsoInTransaction.accept(h, t.after());
            });
        } catch (ConcurrentSagaUpdate e) {
            return new MigrationOutcome.Conflict(find(inst.id()).orElse(inst), e.getMessage());
        }
        committed(t);
        log.info("saga {} moved from {} at {} to {} at {} by an operator", inst.id(), inst.definition(), inst.step(),
                to, t.after().step());
        return new MigrationOutcome.Moved(inst, t.after());
    }

    /** Starts new instances of {@code type} on {@code version} (registered already; {@link SagaRegistry#startingOn}). */
    public synchronized SagaEngine startOn(String type, int version) {
        registry = registry.startingOn(type, version);
        return this;
    }

    /** The definitions this engine runs, and the version each type starts on. */
    public SagaRegistry registry() {
        return registry;
    }

    /**
     * The definition new instances of {@code type} start on ({@link #startOn}).
     *
     * @throws SagaException when no version of {@code type} is registered, or it reads another class
     */
    @SuppressWarnings("unchecked")
    public <D> SagaDefinition<D> starting(String type, Class<D> dataType) {
        SagaDefinition<?> def = registry.starting(type);
        if (def.dataType() != dataType) {
            throw new SagaException("saga " + SagaVersion.of(def) + " reads " + def.dataType().getName() + ", not "
                    + dataType.getName());
        }
        return (SagaDefinition<D>) def;
    }

    /** Called after every committed transition (metrics, tests). */
    public void onTransition(Consumer<SagaInstance<?>> listener) {
        listeners.add(listener);
    }

    public SagaTimings timings() {
        return timings;
    }

    /**
     * Creates an instance at its first step in one transaction with {@code alsoInTransaction}
     * (e.g. the order row and its idempotency record), on {@code def}'s version ({@link #starting}
     * names the default one). Does not run the step: call {@link #advance}.
     *
     * @throws SagaException when {@code def} is not registered with this engine
     */
    public <D> SagaInstance<D> start(SagaDefinition<D> def, UUID id, D data, Consumer<Handle> alsoInTransaction) {
        if (registry.find(SagaVersion.of(def)).orElse(null) != def) {
            throw new SagaException("saga " + SagaVersion.of(def) + " is not registered with this engine");
        }
        Transition<D> t = SagaDecisions.beginTransition(def, id, data, clock.instant(), timings);
        jdbi.useTransaction(h -> {
            alsoInTransaction.accept(h);
            SagaStore.insert(h, t, def.events(t));
            def.onTransition(h, t);
        });
        committed(t);
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
        return advance(instance, deadlineEpochMillis, (h, t) -> {});
    }

    /**
     * As {@link #advance(SagaInstance, long)}, running {@code inEachTransaction}
     * inside the transaction of each transition it commits (e.g. to learn the first one's outcome).
     * A step that throws is a {@link StepResult.Failed}: tried again after a back-off, a bounded
     * number of times ({@link SagaTimings#stepRetries()}), then an incident; it never escapes here.
     */
    public <D> SagaInstance<D> advance(SagaInstance<D> instance, long deadlineEpochMillis,
            BiConsumer<Handle, Transition<D>> inEachTransaction) {
        return advance(instance, deadlineEpochMillis, inEachTransaction, null);
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
        SagaDefinition<D> def = definitionOf(instance);
        SagaInstance<D> current = instance;
        while (isRunnable(current)) {
            SagaStep<D> step = def.step(current.stepIndex());
            if (!(step instanceof SagaStep.Sync<D> sync)) {
                break;
            }
            StepResult<D> result = run(sync, current, new StepContext(current.id(), deadlineEpochMillis));
            if (withdrawal != null && current.version() == 0 && current.status() == SagaStatus.RUNNING
                    && result instanceof StepResult.Unavailable<D> unavailable && unavailable.untried()) {
                SagaInstance<D> untried = current;
                jdbi.useTransaction(h -> {
                    if (!SagaStore.withdraw(h, untried.id(), untried.version())) {
                        throw new ConcurrentSagaUpdate(untried.id(), untried.version());
                    }
                    withdrawal.accept(h);
                });
                throw new SagaWithdrawn(current.id(), unavailable.reason());
            }
            Transition<D> t = SagaDecisions.afterSyncStep(def, current, result, clock.instant(), timings);
            boolean goesOn = t.runsOn() && def.step(t.after().stepIndex()) instanceof SagaStep.Sync;
            jdbi.useTransaction(h -> {
                write(h, def, t);
                inEachTransaction.accept(h, t);
            });
            committed(t);
            current = t.after();
            if (!goesOn) {
                break;
            }
        }
        return current;
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
                    timings.stepRetries(), e.toString(), e);
            return StepResult.failed(Reason.of(Reason.STEP_FAILED, e.toString()));
        }
    }

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

    /**
     * Applies a reply to the saga it answers ({@code correlationId} = saga id), recording the
     * message id in the inbox of {@code consumer} in the same transaction; then runs whatever became
     * due. For callers whose message ids say who asked (an operator's settlement, the reconciler's):
     * the inbox tells a request made twice ({@link ReplyOutcome#DUPLICATE}) from a late one.
     */
    public ReplyOutcome handleReply(String consumer, IncomingMessage message, UUID sagaId) {
        return handle(consumer, List.of(new Reply(message, sagaId))).get(0);
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
        return handle(null, replies);
    }

    private List<ReplyOutcome> handle(String inboxConsumer, List<Reply> replies) {
        List<Applied<?>> results = jdbi.inTransaction(h -> {
            Set<UUID> fresh = inboxConsumer == null ? null : Inbox.firstDeliveries(h, inboxConsumer,
                    replies.stream().map(r -> r.message().messageId()).toList());
            Map<UUID, SagaInstance<?>> current = new HashMap<>();
            List<UUID> ids = replies.stream().map(Reply::sagaId).distinct().toList();
            for (SagaStore.Row row : SagaStore.lockAll(h, ids, registry.known())) {
                current.put(row.id(), read(definition(row.definition()), row));
            }
            // Not locked: unknown, or of a version this engine lacks (it never locks one of those).
            List<UUID> unlocked = ids.stream().filter(id -> !current.containsKey(id)).toList();
            Set<UUID> otherVersions = unlocked.isEmpty() ? Set.of() : SagaStore.heldElsewhere(h, unlocked);
            if (unlocked.size() > otherVersions.size()) {
                // A saga of a version no live process has (its definition gone): nobody can apply the
                // reply, so it fails as poison does, is retried, then dead-lettered as an incident.
                Set<UUID> orphans = new java.util.HashSet<>(SagaStore.existing(h, unlocked));
                orphans.removeAll(otherVersions);
                if (!orphans.isEmpty()) {
                    throw new SagaException("sagas " + orphans + " run a definition version that no live process"
                            + " has (" + SagaStore.versionsOf(h, orphans) + ")");
                }
            }
            List<Applied<?>> list = new ArrayList<>();
            for (Reply reply : replies) {
                SagaInstance<?> instance = current.get(reply.sagaId());
                Applied<?> applied;
                try (Scope trace = inTrace(reply.trace()); LogContext logged = LogContext.of(reply.sagaId())) {
                    applied = fresh != null && !fresh.remove(reply.message().messageId())
                            ? new Applied<>(ReplyOutcome.DUPLICATE, null)
                            : otherVersions.contains(reply.sagaId())
                                    ? new Applied<>(ReplyOutcome.UNKNOWN_VERSION, null)
                            : instance == null ? new Applied<>(ReplyOutcome.UNKNOWN_SAGA, null)
                            : applyReply(h, instance, reply.message());
                }
                if (applied.transition() != null) {
                    current.put(reply.sagaId(), applied.transition().after());
                }
                list.add(applied);
            }
            return list;
        });
        List<ReplyOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            Applied<?> applied = results.get(i);
            if (applied.transition() != null) {
                committed(applied.transition());
                try (Scope trace = inTrace(replies.get(i).trace());
                        LogContext logged = LogContext.of(applied.transition().after().id())) {
                    resumeInline(applied);
                } catch (RuntimeException e) {
                    // Committed and due after its lease: the due-time runner takes it from here.
                    log.warn("saga {} could not go on after its reply, resumed later: {}",
                            applied.transition().after().id(), e.toString());
                }
            }
            outcomes.add(applied.outcome());
        }
        return outcomes;
    }

    /** Makes {@code trace} current while tracing is on; nothing at all while it is off. */
    private Scope inTrace(Context trace) {
        return tracing.on() ? trace.makeCurrent() : Scope.noop();
    }

    /**
     * Claims up to {@code limit} due instances and runs them: resumes after a crash (lease ran
     * out), retries parked steps. {@code skipParkedOn} leaves out sagas parked on dependencies
     * known to be down; {@code onlyParkedOn}, when not null, takes only those parked on it.
     *
     * @return how many instances were run
     */
    public int runDue(int limit, Set<String> skipParkedOn, String onlyParkedOn, long stepBudgetMillis) {
        return runDue(limit, skipParkedOn, onlyParkedOn, stepBudgetMillis, Runnable::run);
    }

    /**
     * As {@link #runDue(int, Set, String, long)}, running the claimed instances on {@code executor}
     * (in parallel) and returning once all of them ran.
     */
    public int runDue(int limit, Set<String> skipParkedOn, String onlyParkedOn, long stepBudgetMillis,
            java.util.concurrent.Executor executor) {
        Instant now = clock.instant();
        Instant lease = now.plus(timings.lease());
        List<Claimed> claimed = jdbi.inTransaction(h -> {
            List<Claimed> list = new ArrayList<>();
            for (SagaStore.Row row : SagaStore.lockDue(h, now, limit, skipParkedOn, onlyParkedOn, registry.known())) {
                SagaStore.claim(h, row.id(), row.version(), lease);
                list.add(new Claimed(claimedInstance(definition(row.definition()), row, lease), row.traceparent()));
            }
            return list;
        });
        List<java.util.concurrent.CompletableFuture<Void>> runs = new ArrayList<>();
        for (Claimed c : claimed) {
            runs.add(java.util.concurrent.CompletableFuture.runAsync(
                    () -> runClaimed(c, clock.millis() + stepBudgetMillis), executor));
        }
        java.util.concurrent.CompletableFuture.allOf(runs.toArray(java.util.concurrent.CompletableFuture[]::new)).join();
        return claimed.size();
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
        return jdbi.withHandle(h -> SagaStore.known(h.createUpdate("UPDATE saga_instance SET next_attempt_at = :now"
                        + " WHERE parked_on = :dependency AND next_attempt_at > :now" + SagaStore.KNOWN), registry.known())
                .bind("dependency", dependency).bind("now", java.sql.Timestamp.from(clock.instant())).execute());
    }

    /**
     * Sends the current asynchronous step's command of saga {@code id} again (same data, so the
     * same participant key: at most one effect), in one transaction with its history row.
     *
     * @return the saga after it, or empty when it is no longer waiting for a reply
     */
    public Optional<SagaInstance<?>> resendCommand(UUID id, String why) {
        Optional<Transition<?>> done = jdbi.inTransaction(h -> {
            List<SagaStore.Row> rows = SagaStore.lockAll(h, List.of(id), registry.known());
            if (rows.isEmpty() || rows.get(0).status() != SagaStatus.AWAITING_REPLY) {
                return Optional.empty();
            }
            return Optional.of(resend(h, definition(rows.get(0).definition()), rows.get(0), why));
        });
        done.ifPresent(this::committed);
        return done.map(Transition::after);
    }

    private <D> Transition<D> resend(Handle h, SagaDefinition<D> def, SagaStore.Row row, String why) {
        Transition<D> t = SagaDecisions.resendCommand(def, row.as(def), why);
        write(h, def, t);
        log.warn("saga {} step {}: command sent again ({})", row.id(), row.step(), why);
        return t;
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
        boolean raised = jdbi.inTransaction(h -> SagaStore.raiseIncident(h, id, cause, detail, clock.instant()));
        if (raised) {
            log.error("saga {} needs an operator: incident {} ({})", id, cause, detail);
            incidentListeners.forEach(l -> l.accept(id, cause));
        }
        return raised;
    }

    /**
     * Raises {@link IncidentCause#COMPENSATION_STALLED} on up to {@code limit} sagas compensating,
     * parked on a participant, since longer than {@code stalledAfter} (by their label's time) and
     * with no incident yet. They are still retried; the incident tells an operator. Returns how many.
     */
    public int flagStalledCompensations(Duration stalledAfter, int limit) {
        List<Map<String, Object>> stalled = jdbi.withHandle(h -> SagaStore.known(h.createQuery("SELECT saga_id,"
                        + " parked_on, park_count FROM saga_instance WHERE status = 'COMPENSATING' AND parked_on IS NOT"
                        + " NULL AND incident_cause IS NULL AND label_at < :before" + SagaStore.KNOWN
                        + " ORDER BY label_at LIMIT :limit"), registry.known())
                .bind("before", java.sql.Timestamp.from(clock.instant().minus(stalledAfter)))
                .bind("limit", limit).mapToMap().list());
        int raised = 0;
        for (Map<String, Object> row : stalled) {
            if (raiseIncident((UUID) row.get("saga_id"), IncidentCause.COMPENSATION_STALLED, "compensating, parked on "
                    + row.get("parked_on") + " for more than " + stalledAfter.toMinutes() + " min ("
                    + row.get("park_count") + " parks); still retried")) {
                raised++;
            }
        }
        return raised;
    }

    /** Called after an incident was raised (metrics, tests), with the saga id and the cause. */
    public void onIncident(BiConsumer<UUID, IncidentCause> listener) {
        incidentListeners.add(listener);
    }

    /** Marks asynchronous steps whose reply is late; they keep waiting, visibly. */
    public int timeOutSteps(int limit) {
        List<Transition<?>> done = jdbi.inTransaction(h -> {
            List<Transition<?>> list = new ArrayList<>();
            for (SagaStore.Row row : SagaStore.lockTimedOut(h, clock.instant(), limit, registry.known())) {
                list.add(timeOut(h, definition(row.definition()), row));
            }
            return list;
        });
        done.forEach(this::committed);
        return done.size();
    }

    /** Gives up on sagas parked past their time to live: compensates and ends them. */
    public int expireParked(int limit) {
        List<Applied<?>> done = jdbi.inTransaction(h -> {
            List<Applied<?>> list = new ArrayList<>();
            for (SagaStore.Row row : SagaStore.lockExpired(h, clock.instant(), limit, registry.known())) {
                list.add(expire(h, definition(row.definition()), row));
            }
            return list;
        });
        for (Applied<?> a : done) {
            committed(a.transition());
            resumeInline(a);
        }
        return done.size();
    }

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
        Optional<SagaInstance<?>> found = findKnown(id);
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
        SagaDefinition<D> def = definitionOf(inst);
        Instant now = clock.instant();
        Transition<D> t = command == OperatorCommand.RETRY ? SagaDecisions.retry(def, inst, reason, now, timings)
                : SagaDecisions.cancel(def, inst, reason, endReason, now, timings);
        try {
            jdbi.useTransaction(h -> {
                write(h, def, t);
                alsoInTransaction.accept(h, t.after());
            });
        } catch (ConcurrentSagaUpdate e) {
            return new OperatorOutcome.Conflict(find(inst.id()).orElse(inst), e.getMessage());
        }
        committed(t);
        SagaInstance<D> after = t.after();
        if (isRunnable(after) && def.step(after.stepIndex()) instanceof SagaStep.Sync) {
            try {
                after = advance(after, clock.millis() + stepBudgetMillis);
            } catch (ConcurrentSagaUpdate e) {
                log.info("saga {} moved on elsewhere after an operator's {}: {}", inst.id(), command, e.getMessage());
            } catch (RuntimeException e) {
                // Written and claimed: when the lease runs out the due-time runner runs it.
                log.warn("saga {} could not run right after an operator's {}; run after its lease: {}", inst.id(),
                        command, e.toString());
            }
        }
        return new OperatorOutcome.Applied(find(inst.id()).orElse(after));
    }

    /** Sagas that cannot go on without an operator, per cause (through the partial incident index). */
    public Map<IncidentCause, Long> incidentCounts() {
        return jdbi.withHandle(h -> {
            Map<IncidentCause, Long> counts = new java.util.EnumMap<>(IncidentCause.class);
            h.createQuery("SELECT incident_cause, count(*) FROM saga_instance WHERE incident_cause IS NOT NULL"
                            + " GROUP BY incident_cause")
                    .map((rs, ctx) -> Map.entry(IncidentCause.valueOf(rs.getString(1)), rs.getLong(2)))
                    .forEach(e -> counts.put(e.getKey(), e.getValue()));
            return counts;
        });
    }

    /**
     * The instance as stored now, if any.
     *
     * @throws UnknownSagaVersion when it runs a definition version this engine does not have
     */
    public Optional<SagaInstance<?>> find(UUID id) {
        return jdbi.withHandle(h -> SagaStore.find(h, id).map(row -> read(definition(row.definition()), row)));
    }

    /** The instance as stored now, if it exists and this engine has its definition version. */
    private Optional<SagaInstance<?>> findKnown(UUID id) {
        return jdbi.withHandle(h -> SagaStore.find(h, id).filter(row -> registry.find(row.definition()).isPresent())
                .map(row -> read(definition(row.definition()), row)));
    }

    private record Applied<D>(ReplyOutcome outcome, Transition<D> transition) {}

    private <D> Applied<D> applyReply(Handle h, SagaInstance<D> instance, IncomingMessage message) {
        SagaDefinition<D> def = definitionOf(instance);
        if (instance.status() != SagaStatus.AWAITING_REPLY
                || !(def.step(instance.stepIndex()) instanceof SagaStep.Async<D> async)) {
            log.warn("saga {} got {} while {} at {}: ignored", instance.id(), message.type(), instance.status(),
                    instance.step());
            return new Applied<>(ReplyOutcome.NOT_AWAITED, null);
        }
        StepResult<D> result = async.onReply().apply(instance.data(), message);
        if (result == null) {
            log.warn("saga {} at {} got unexpected {}: ignored", instance.id(), instance.step(), message.type());
            return new Applied<>(ReplyOutcome.NOT_AWAITED, null);
        }
        Transition<D> t = SagaDecisions.afterReply(def, instance, result, clock.instant(), timings);
        write(h, def, t);
        if (tracing.on()) {
            // On the reply consumer's span: the trace shows where the reply took the saga.
            Span.current().setAttribute("saga.status", t.after().label());
        }
        return new Applied<>(ReplyOutcome.APPLIED, t);
    }

    private <D> Transition<D> timeOut(Handle h, SagaDefinition<D> def, SagaStore.Row row) {
        Transition<D> t = SagaDecisions.afterStepTimeout(def, row.as(def));
        write(h, def, t);
        log.warn("saga {} step {} timed out waiting for its reply; now {}", row.id(), row.step(), t.after().label());
        return t;
    }

    private <D> Applied<D> expire(Handle h, SagaDefinition<D> def, SagaStore.Row row) {
        Transition<D> t = SagaDecisions.expire(def, row.as(def), clock.instant(), timings);
        write(h, def, t);
        log.warn("saga {} expired after waiting on {} since {}; now {}", row.id(), row.parkedOn(), row.createdAt(),
                t.after().label());
        return new Applied<>(ReplyOutcome.APPLIED, t);
    }

    private <D> void resumeInline(Applied<D> applied) {
        if (applied.transition().runsOn()) {
            try {
                advance(applied.transition().after(), clock.millis() + 2_000);
            } catch (ConcurrentSagaUpdate e) {
                log.info("saga {} moved on elsewhere: {}", applied.transition().after().id(), e.getMessage());
            }
        }
    }

    /** A claimed instance and the trace that created it (null when untraced). */
    private record Claimed(SagaInstance<?> instance, String origin) {}

    /**
     * Runs a claimed saga; when tracing is on, in a new trace whose root span links to the trace
     * that created the saga: a resume is its own story, minutes or hours after the request.
     */
    private void runClaimed(Claimed claimed, long deadline) {
        SagaInstance<?> instance = claimed.instance();
        Span span = tracing.on() ? tracing.startLinked("saga " + instance.type() + " resume",
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
            SagaInstance<D> after = advance(instance, deadline);
            if (tracing.on()) {
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

    private <D> SagaInstance<D> claimedInstance(SagaDefinition<D> def, SagaStore.Row row, Instant lease) {
        return row.as(def).claimed(lease);
    }

    private <D> SagaInstance<D> read(SagaDefinition<D> def, SagaStore.Row row) {
        return row.as(def);
    }

    private <D> void write(Handle h, SagaDefinition<D> def, Transition<D> t) {
        SagaStore.update(h, t, def.events(t));
        def.onTransition(h, t);
    }

    private void committed(Transition<?> t) {
        if (!t.messages().isEmpty()) {
            afterOutboxWrite.run();
        }
        if (t.raisesIncident()) {
            Incident incident = t.after().incident();
            log.error("saga {} needs an operator: incident {} at {} while {} ({})", t.after().id(), incident.cause(),
                    t.after().step(), t.after().label(), incident.detail());
            incidentListeners.forEach(l -> l.accept(t.after().id(), incident.cause()));
        }
        listeners.forEach(l -> l.accept(t.after()));
    }

    private static boolean isRunnable(SagaInstance<?> s) {
        return s.status() == SagaStatus.RUNNING || s.status() == SagaStatus.PARKED
                || s.status() == SagaStatus.COMPENSATING;
    }

    /** The definition of the version {@code instance} runs: every move of an instance is decided by it. */
    @SuppressWarnings("unchecked")
    private <D> SagaDefinition<D> definitionOf(SagaInstance<D> instance) {
        return (SagaDefinition<D>) definition(instance.definition());
    }

    private SagaDefinition<?> definition(SagaVersion version) {
        return registry.find(version).orElseThrow(() -> new UnknownSagaVersion(version));
    }
}
