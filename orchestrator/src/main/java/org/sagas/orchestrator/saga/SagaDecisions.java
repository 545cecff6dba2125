package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The engine's decisions: pure functions from an instance and what happened to a
 * {@link Transition}. No database, no clock of their own: testable as they are.
 */
public final class SagaDecisions {
    private SagaDecisions() {}

    /** A new instance entering its first step (version 0), with what that publishes. */
    public static <D> Transition<D> beginTransition(SagaDefinition<D> def, UUID id, D data, Instant now,
            SagaTimings timings) {
        SagaStep<D> first = def.step(0);
        SagaInstance<D> blank = new SagaInstance<>(id, def.type(), SagaStatus.RUNNING, 0, first.name(), "NEW", -1,
                data, null, null, 0, null, null, null, now);
        return enter(def, blank, 0, data, now, timings, new ArrayList<>());
    }

    /** After the current synchronous step (or its compensation) ran. */
    public static <D> Transition<D> afterSyncStep(SagaDefinition<D> def, SagaInstance<D> inst, StepResult<D> result,
            Instant now, SagaTimings timings) {
        if (inst.status() == SagaStatus.COMPENSATING) {
            return afterCompensation(def, inst, result, now, timings);
        }
        requireForward(inst);
        if (result instanceof StepResult.Done<D> done) {
            return enter(def, inst, inst.stepIndex() + 1, done.data(), now, timings, new ArrayList<>());
        }
        if (result instanceof StepResult.Refused<D> refused) {
            return compensateFrom(def, inst, inst.stepIndex() - 1, inst.data(), refused.reason(), refused.reason(),
                    now, timings, new ArrayList<>());
        }
        StepResult.Unavailable<D> unavailable = (StepResult.Unavailable<D>) result;
        return park(def, inst, SagaStatus.PARKED, unavailable, now, timings);
    }

    /** A reply to the current asynchronous step arrived. */
    public static <D> Transition<D> afterReply(SagaDefinition<D> def, SagaInstance<D> inst, StepResult<D> result,
            Instant now, SagaTimings timings) {
        if (inst.status() != SagaStatus.AWAITING_REPLY) {
            throw new IllegalSagaTransition("reply to " + inst.id() + " while " + inst.status());
        }
        if (result instanceof StepResult.Done<D> done) {
            return enter(def, inst, inst.stepIndex() + 1, done.data(), now, timings, new ArrayList<>());
        }
        if (result instanceof StepResult.Refused<D> refused) {
            return compensateFrom(def, inst, inst.stepIndex() - 1, inst.data(), refused.reason(), refused.reason(),
                    now, timings, new ArrayList<>());
        }
        throw new IllegalSagaTransition("a reply cannot be 'unavailable'");
    }

    /** The current asynchronous step's reply is late: the saga stays waiting, visibly. */
    public static <D> Transition<D> afterStepTimeout(SagaDefinition<D> def, SagaInstance<D> inst) {
        if (inst.status() != SagaStatus.AWAITING_REPLY) {
            throw new IllegalSagaTransition("timeout of " + inst.id() + " while " + inst.status());
        }
        SagaInstance<D> after = inst.stepDeadline(null);
        String label = def.label(new Situation<>(after.status(), after.step(), after.data(), after.parkCount(), true));
        after = bump(after.withLabel(label));
        return new Transition<>(inst, after, "no reply to " + inst.step() + " in time", List.of());
    }

    /**
     * A parked forward step waited longer than its time to live: undo what was done, then end. The
     * parked step itself is undone too — an attempt that timed out may have taken effect at the
     * participant, and its compensation (idempotent by key) makes sure nothing outlives the saga.
     */
    public static <D> Transition<D> expire(SagaDefinition<D> def, SagaInstance<D> inst, Instant now,
            SagaTimings timings) {
        requireForward(inst);
        return compensateFrom(def, inst, inst.stepIndex(), inst.data(), "expired", "expired", now, timings,
                new ArrayList<>());
    }

    /**
     * An operator's retry of a saga that has not ended. A synchronous step or compensation (due,
     * parked, or held by a runner) is claimed under a fresh lease for the caller to run at once;
     * an asynchronous step's command is sent again — participants see the same key, so it takes
     * effect once — with a fresh deadline.
     *
     * @throws IllegalSagaTransition when the saga has ended (see {@link #operatorRefusal})
     */
    public static <D> Transition<D> retry(SagaDefinition<D> def, SagaInstance<D> inst, String reason, Instant now,
            SagaTimings timings) {
        requireOpen(inst);
        if (inst.status() == SagaStatus.AWAITING_REPLY
                && def.step(inst.stepIndex()) instanceof SagaStep.Async<D> async) {
            SagaInstance<D> after = relabel(def, bump(inst.stepDeadline(now.plus(async.timeout()))));
            return new Transition<>(inst, after, reason, List.of(async.command().apply(inst.id(), inst.data())));
        }
        return new Transition<>(inst, bump(inst.due(now.plus(timings.lease()))), reason, List.of());
    }

    /**
     * An operator's cancel of a saga that has not ended: undoes what was done, last first, as
     * {@link #expire} does — the current step included, since an attempt or a command already
     * sent may have taken effect; its compensation is keyed, so undoing what never happened is a
     * no-op. A saga already compensating is only made due now. {@code endReason} is what the end
     * says (stable, for customers); {@code reason} goes to the history.
     *
     * @throws IllegalSagaTransition when the saga has ended (see {@link #operatorRefusal})
     */
    public static <D> Transition<D> cancel(SagaDefinition<D> def, SagaInstance<D> inst, String reason,
            String endReason, Instant now, SagaTimings timings) {
        requireOpen(inst);
        if (inst.status() == SagaStatus.COMPENSATING) {
            return retry(def, inst, reason, now, timings);
        }
        return compensateFrom(def, inst, inst.stepIndex(), inst.data(), reason, endReason, now, timings,
                new ArrayList<>());
    }

    /** Why an operator may not retry or cancel {@code inst}, if so: it has ended. */
    public static Optional<String> operatorRefusal(SagaInstance<?> inst) {
        return inst.isTerminal() ? Optional.of("the saga has ended (" + inst.status() + ", " + inst.label() + ")")
                : Optional.empty();
    }

    private static <D> Transition<D> afterCompensation(SagaDefinition<D> def, SagaInstance<D> inst,
            StepResult<D> result, Instant now, SagaTimings timings) {
        if (result instanceof StepResult.Unavailable<D> unavailable) {
            return park(def, inst, SagaStatus.COMPENSATING, unavailable, now, timings);
        }
        D data = result instanceof StepResult.Done<D> done ? done.data() : inst.data();
        // A participant that refuses a compensation has nothing to undo (e.g. unknown reservation).
        return compensateFrom(def, inst, inst.stepIndex() - 1, data, null, null, now, timings, new ArrayList<>());
    }

    /** Moves forward into step {@code index}, or completes when there is none. */
    private static <D> Transition<D> enter(SagaDefinition<D> def, SagaInstance<D> inst, int index, D data, Instant now,
            SagaTimings timings, List<OutgoingMessage> messages) {
        List<SagaStep<D>> steps = def.steps();
        if (index >= steps.size()) {
            SagaInstance<D> after = relabel(def, inst.with(SagaStatus.COMPLETED, steps.size() - 1,
                    steps.get(steps.size() - 1).name(), inst.label(), data));
            messages.addAll(def.onEnd(after, "completed"));
            return new Transition<>(inst, after, "completed", messages);
        }
        SagaStep<D> step = steps.get(index);
        if (step instanceof SagaStep.Async<D> async) {
            messages.add(async.command().apply(inst.id(), data));
            SagaInstance<D> after = inst.with(SagaStatus.AWAITING_REPLY, index, step.name(), inst.label(), data)
                    .stepDeadline(now.plus(async.timeout()));
            return new Transition<>(inst, relabel(def, after), "awaiting reply to " + step.name(), messages);
        }
        SagaInstance<D> after = inst.with(SagaStatus.RUNNING, index, step.name(), inst.label(), data)
                .due(now.plus(timings.lease()));
        return new Transition<>(inst, relabel(def, after), index == 0 ? "started" : step.name() + " due", messages);
    }

    /**
     * Undoes steps from {@code index} down: asynchronous compensations are commands published at
     * once; the first synchronous one found becomes the current step. Ends the saga when none is left.
     */
    private static <D> Transition<D> compensateFrom(SagaDefinition<D> def, SagaInstance<D> inst, int index, D data,
            String reason, String endReasonIfEnded, Instant now, SagaTimings timings, List<OutgoingMessage> messages) {
        String why = reason != null ? reason : inst.status() == SagaStatus.COMPENSATING ? "compensated " + inst.step()
                : "compensating";
        for (int i = index; i >= 0; i--) {
            SagaStep<D> step = def.step(i);
            if (step instanceof SagaStep.Sync<D> sync && sync.compensation() != null) {
                SagaInstance<D> after = inst.with(SagaStatus.COMPENSATING, i, step.name(), inst.label(), data)
                        .due(now.plus(timings.lease()));
                return new Transition<>(inst, relabel(def, after), why, messages);
            }
            if (step instanceof SagaStep.Async<D> async && async.compensation() != null) {
                messages.add(async.compensation().apply(inst.id(), data));
            }
        }
        boolean undid = inst.status() == SagaStatus.COMPENSATING || !messages.isEmpty();
        SagaStatus end = undid ? SagaStatus.COMPENSATED : SagaStatus.FAILED;
        SagaInstance<D> after = relabel(def, inst.with(end, inst.stepIndex(), inst.step(), inst.label(), data));
        String endReason = endReasonIfEnded != null ? endReasonIfEnded : "compensated";
        messages.addAll(def.onEnd(after, endReason));
        return new Transition<>(inst, after, why, messages);
    }

    private static <D> Transition<D> park(SagaDefinition<D> def, SagaInstance<D> inst, SagaStatus status,
            StepResult.Unavailable<D> unavailable, Instant now, SagaTimings timings) {
        Instant expiry = status == SagaStatus.PARKED ? now.plus(timings.parkedTtl()) : null;
        SagaInstance<D> after = bump(inst.withStatus(status)
                .parked(unavailable.dependency(), unavailable.reason(), now.plus(timings.parkRetry()), expiry));
        after = relabel(def, after);
        return new Transition<>(inst, after, "parked on " + unavailable.dependency() + ": " + unavailable.reason(),
                List.of());
    }

    private static <D> SagaInstance<D> relabel(SagaDefinition<D> def, SagaInstance<D> inst) {
        return inst.withLabel(def.label(new Situation<>(inst.status(), inst.step(), inst.data(), inst.parkCount(),
                false)));
    }

    private static <D> SagaInstance<D> bump(SagaInstance<D> inst) {
        return new SagaInstance<>(inst.id(), inst.type(), inst.status(), inst.stepIndex(), inst.step(), inst.label(),
                inst.version() + 1, inst.data(), inst.parkedOn(), inst.parkReason(), inst.parkCount(),
                inst.nextAttemptAt(), inst.stepDeadlineAt(), inst.expiresAt(), inst.createdAt());
    }

    private static <D> void requireOpen(SagaInstance<D> inst) {
        if (inst.isTerminal()) {
            throw new IllegalSagaTransition("operator action on " + inst.id() + " while " + inst.status());
        }
    }

    private static <D> void requireForward(SagaInstance<D> inst) {
        if (inst.status() != SagaStatus.RUNNING && inst.status() != SagaStatus.PARKED) {
            throw new IllegalSagaTransition("step result for " + inst.id() + " while " + inst.status());
        }
    }
}
