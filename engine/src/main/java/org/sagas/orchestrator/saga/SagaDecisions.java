package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/**
 * The engine's decisions: pure functions from an instance and what happened to a
 * {@link Transition}. No database, no clock of their own: testable as they are. Each switches on
 * the {@link StepResult} type (docs/design.md, "Steps and compensations"): nothing is decided on text.
 */
public final class SagaDecisions {
    private SagaDecisions() {}

    /** A new instance entering its first step (version 0), with what that publishes. */
    public static <D> Transition<D> beginTransition(SagaDefinition<D> def, UUID id, D data, Instant now,
            SagaTimings timings) {
        SagaStep<D> first = def.step(0);
        SagaInstance<D> blank = new SagaInstance<>(id, SagaVersion.of(def), SagaStatus.RUNNING, 0, first.name(), "NEW", -1,
                data, null, null, 0, null, null, null, now, 0, 0, null, null);
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
            return compensateFrom(def, inst, inst.stepIndex() - 1, inst.data(), refused.reason(), now, timings,
                    new ArrayList<>());
        }
        if (result instanceof StepResult.Abandoned<D> abandoned) {
            return compensateFrom(def, inst, inst.stepIndex(), inst.data(), abandoned.reason(), now, timings,
                    new ArrayList<>());
        }
        if (result instanceof StepResult.Unavailable<D> unavailable) {
            return park(def, inst, SagaStatus.PARKED, unavailable.dependency(), unavailable.reason(), now, timings);
        }
        if (result instanceof StepResult.Unknown<D> unknown) {
            return park(def, inst, SagaStatus.PARKED, unknown.dependency(), unknown.reason(), now, timings);
        }
        return failedAttempt(def, inst, ((StepResult.Failed<D>) result).reason(), now, timings);
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
            return compensateFrom(def, inst, inst.stepIndex() - 1, inst.data(), refused.reason(), now, timings,
                    new ArrayList<>());
        }
        if (result instanceof StepResult.Abandoned<D> abandoned) {
            return compensateFrom(def, inst, inst.stepIndex(), inst.data(), abandoned.reason(), now, timings,
                    new ArrayList<>());
        }
        throw new IllegalSagaTransition("a reply is an answer: done, refused or abandoned, not " + result);
    }

    /** The current asynchronous step's reply is late: the saga stays waiting, visibly. */
    public static <D> Transition<D> afterStepTimeout(SagaDefinition<D> def, SagaInstance<D> inst) {
        if (inst.status() != SagaStatus.AWAITING_REPLY) {
            throw new IllegalSagaTransition("timeout of " + inst.id() + " while " + inst.status());
        }
        SagaInstance<D> after = inst.stepDeadline(null);
        String label = def.label(new Situation<>(after.status(), after.step(), after.data(), after.parkCount(), true));
        after = after.withLabel(label).bumped();
        return new Transition<>(inst, after, Reason.of(Reason.STEP_TIMED_OUT, "no reply to " + inst.step()
                + " in time"), List.of());
    }

    /**
     * Sends the current asynchronous step's command again, under the same key (its command is
     * built from the same data): the earlier one was lost or dead-lettered. The saga keeps waiting
     * and its label; {@link SagaInstance#stepRetries()} counts the resends.
     */
    public static <D> Transition<D> resendCommand(SagaDefinition<D> def, SagaInstance<D> inst, String why) {
        if (inst.status() != SagaStatus.AWAITING_REPLY
                || !(def.step(inst.stepIndex()) instanceof SagaStep.Async<D> async)) {
            throw new IllegalSagaTransition("resend for " + inst.id() + " while " + inst.status() + " at "
                    + inst.step());
        }
        SagaInstance<D> after = inst.retried(false).withIncident(null).bumped();
        return new Transition<>(inst, after, Reason.of(Reason.COMMAND_RESENT, why),
                List.of(async.command().apply(inst.id(), inst.data())));
    }

    /**
     * Marks the saga as an incident: it stays where it is, nothing runs it until an operator acts
     * (no next attempt), and {@code cause} says why.
     */
    public static <D> Transition<D> incident(SagaInstance<D> inst, IncidentCause cause, String detail, Instant now) {
        if (inst.isTerminal()) {
            throw new IllegalSagaTransition("incident for " + inst.id() + " while " + inst.status());
        }
        SagaInstance<D> after = inst.withIncident(new Incident(cause, detail, now)).due(null).bumped();
        return new Transition<>(inst, after, Reason.of(cause.name().toLowerCase(java.util.Locale.ROOT), detail),
                List.of());
    }

    /**
     * A parked forward step waited longer than its time to live: undo what was done, then end. The
     * parked step itself is undone too — an attempt that timed out may have taken effect at the
     * participant, and its compensation (idempotent by key) makes sure nothing outlives the saga.
     */
    public static <D> Transition<D> expire(SagaDefinition<D> def, SagaInstance<D> inst, Instant now,
            SagaTimings timings) {
        requireForward(inst);
        return compensateFrom(def, inst, inst.stepIndex(), inst.data(), Reason.of(Reason.EXPIRED,
                "parked on " + inst.parkedOn() + " since before " + inst.expiresAt()), now, timings, new ArrayList<>());
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
            SagaInstance<D> after = relabel(def, inst.stepDeadline(now.plus(async.timeout())).bumped());
            return new Transition<>(inst, after, Reason.of(Reason.OPERATOR_RETRY, reason),
                    List.of(async.command().apply(inst.id(), inst.data())));
        }
        return new Transition<>(inst, inst.due(now.plus(timings.lease())).bumped(),
                Reason.of(Reason.OPERATOR_RETRY, reason), List.of());
    }

    /**
     * An operator's cancel of a saga that has not ended: undoes what was done, last first, as
     * {@link #expire} does — the current step included, since an attempt or a command already
     * sent may have taken effect; its compensation is keyed, so undoing what never happened is a
     * no-op. A saga already compensating is only made due now. {@code endReason} is the end's
     * stable reason code (for customers); {@code reason}, the operator's words, is its detail.
     *
     * @throws IllegalSagaTransition when the saga has ended (see {@link #operatorRefusal})
     */
    public static <D> Transition<D> cancel(SagaDefinition<D> def, SagaInstance<D> inst, String reason,
            String endReason, Instant now, SagaTimings timings) {
        requireOpen(inst);
        if (inst.status() == SagaStatus.COMPENSATING) {
            return retry(def, inst, reason, now, timings);
        }
        return compensateFrom(def, inst, inst.stepIndex(), inst.data(), Reason.of(endReason, reason), now, timings,
                new ArrayList<>());
    }

    /**
     * An operator's move of {@code inst} from its definition ({@code from}) to {@code to}, at the
     * step {@code plan} maps its state to: the same status, data and parking, relabelled by {@code
     * to}; the history row (reason {@link Reason#MIGRATED}) names both versions and steps.
     *
     * @throws IllegalSagaTransition when the saga has ended, or the step index is not one of {@code to}'s
     */
    public static <D> Transition<D> migrate(SagaDefinition<D> from, SagaDefinition<D> to, SagaInstance<D> inst,
            SagaMigration.Plan.MoveTo plan, String reason) {
        requireOpen(inst);
        if (plan.stepIndex() < 0 || plan.stepIndex() >= to.steps().size()) {
            throw new IllegalSagaTransition("no step " + plan.stepIndex() + " in " + SagaVersion.of(to));
        }
        String step = to.step(plan.stepIndex()).name();
        SagaInstance<D> after = relabel(to, inst.migrated(SagaVersion.of(to), plan.stepIndex(), step));
        return new Transition<>(inst, after, Reason.of(Reason.MIGRATED, SagaVersion.of(from) + " at " + inst.step()
                + " -> " + SagaVersion.of(to) + " at " + step + ": " + reason), List.of());
    }

    /** Why an operator may not retry or cancel {@code inst}, if so: it has ended. */
    public static Optional<String> operatorRefusal(SagaInstance<?> inst) {
        return inst.isTerminal() ? Optional.of("the saga has ended (" + inst.status() + ", " + inst.label() + ")")
                : Optional.empty();
    }

    private static <D> Transition<D> afterCompensation(SagaDefinition<D> def, SagaInstance<D> inst,
            StepResult<D> result, Instant now, SagaTimings timings) {
        if (result instanceof StepResult.Done<D> done) {
            return compensateFrom(def, inst, inst.stepIndex() - 1, done.data(), null, now, timings, new ArrayList<>());
        }
        if (result instanceof StepResult.Unavailable<D> unavailable) {
            return park(def, inst, SagaStatus.COMPENSATING, unavailable.dependency(), unavailable.reason(), now,
                    timings);
        }
        if (result instanceof StepResult.Unknown<D> unknown) {
            return park(def, inst, SagaStatus.COMPENSATING, unknown.dependency(), unknown.reason(), now, timings);
        }
        if (result instanceof StepResult.Refused<D> refused) {
            // Undoing cannot be skipped (stock would stay held) nor retried (the answer stays no).
            return incident(inst, IncidentCause.PARTICIPANT_REFUSED, inst.step() + " compensation refused: "
                    + refused.reason().describe(), now);
        }
        if (result instanceof StepResult.Abandoned<D> abandoned) {
            return incident(inst, IncidentCause.STEP_FAILED, inst.step() + " compensation gave up: "
                    + abandoned.reason().describe(), now);
        }
        return failedAttempt(def, inst, ((StepResult.Failed<D>) result).reason(), now, timings);
    }

    /** A step threw: try it again after a back-off, a bounded number of times, then an incident. */
    private static <D> Transition<D> failedAttempt(SagaDefinition<D> def, SagaInstance<D> inst, Reason reason,
            Instant now, SagaTimings timings) {
        if (inst.stepRetries() >= timings.stepRetries()) {
            return incident(inst, IncidentCause.STEP_FAILED, inst.step() + " failed " + (inst.stepRetries() + 1)
                    + " times, last: " + reason.describe(), now);
        }
        SagaInstance<D> after = inst.retried(inst.status() != SagaStatus.COMPENSATING);
        after = relabel(def, after.due(now.plus(timings.failureBackoff(after.stepRetries()))).bumped());
        return new Transition<>(inst, after, Reason.of(Reason.STEP_FAILED, reason.detail()), List.of());
    }

    /** Moves forward into step {@code index}, or completes when there is none. */
    private static <D> Transition<D> enter(SagaDefinition<D> def, SagaInstance<D> inst, int index, D data, Instant now,
            SagaTimings timings, List<OutgoingMessage> messages) {
        List<SagaStep<D>> steps = def.steps();
        if (index >= steps.size()) {
            SagaInstance<D> after = relabel(def, inst.with(SagaStatus.COMPLETED, steps.size() - 1,
                    steps.get(steps.size() - 1).name(), inst.label(), data).withCompletedSteps(steps.size()));
            Reason reason = Reason.of(Reason.COMPLETED);
            messages.addAll(def.onEnd(after, reason));
            return new Transition<>(inst, after, reason, messages);
        }
        SagaStep<D> step = steps.get(index);
        if (step instanceof SagaStep.Async<D> async) {
            messages.add(async.command().apply(inst.id(), data));
            SagaInstance<D> after = inst.with(SagaStatus.AWAITING_REPLY, index, step.name(), inst.label(), data)
                    .stepDeadline(now.plus(async.timeout())).withCompletedSteps(index);
            return new Transition<>(inst, relabel(def, after), Reason.of(Reason.AWAITING_REPLY, step.name()),
                    messages);
        }
        SagaInstance<D> after = inst.with(SagaStatus.RUNNING, index, step.name(), inst.label(), data)
                .due(now.plus(timings.lease())).withCompletedSteps(index);
        return new Transition<>(inst, relabel(def, after), Reason.of(index == 0 ? Reason.STARTED : Reason.STEP_DUE,
                step.name()), messages);
    }

    /**
     * Undoes steps from {@code index} down: asynchronous compensations are commands published at
     * once; the first synchronous one found becomes the current step. Ends the saga when none is
     * left: {@link SagaStatus#COMPENSATED} when some step had been done, else {@link
     * SagaStatus#FAILED}. The first {@code cause} stays with the saga to its end.
     */
    private static <D> Transition<D> compensateFrom(SagaDefinition<D> def, SagaInstance<D> inst, int index, D data,
            Reason cause, Instant now, SagaTimings timings, List<OutgoingMessage> messages) {
        // Sagas that were compensating before causes were kept have none: call it what it is.
        Reason why = inst.cause() != null ? inst.cause() : cause != null ? cause : Reason.of(Reason.COMPENSATED);
        Reason reason = inst.status() == SagaStatus.COMPENSATING
                ? Reason.of(Reason.COMPENSATED, inst.step()) : why;
        for (int i = index; i >= 0; i--) {
            SagaStep<D> step = def.step(i);
            if (step instanceof SagaStep.Sync<D> sync && sync.compensation() != null) {
                SagaInstance<D> after = inst.with(SagaStatus.COMPENSATING, i, step.name(), inst.label(), data)
                        .due(now.plus(timings.lease())).withCause(why);
                return new Transition<>(inst, relabel(def, after), reason, messages);
            }
            if (step instanceof SagaStep.Async<D> async && async.compensation() != null) {
                messages.add(async.compensation().apply(inst.id(), data));
            }
        }
        SagaStatus end = inst.completedSteps() > 0 ? SagaStatus.COMPENSATED : SagaStatus.FAILED;
        SagaInstance<D> after = relabel(def, inst.with(end, inst.stepIndex(), inst.step(), inst.label(), data)
                .withCause(why));
        messages.addAll(def.onEnd(after, why));
        return new Transition<>(inst, after, why, messages);
    }

    private static <D> Transition<D> park(SagaDefinition<D> def, SagaInstance<D> inst, SagaStatus status,
            String dependency, Reason reason, Instant now, SagaTimings timings) {
        Instant expiry = status == SagaStatus.PARKED ? now.plus(timings.parkedTtl()) : null;
        SagaInstance<D> after = inst.withStatus(status).parked(dependency, reason.describe(),
                now.plus(timings.parkRetry()), expiry, status == SagaStatus.PARKED).bumped();
        after = relabel(def, after);
        return new Transition<>(inst, after, Reason.of(reason.code(), "parked on " + dependency + ": "
                + reason.describe()), List.of());
    }

    private static <D> SagaInstance<D> relabel(SagaDefinition<D> def, SagaInstance<D> inst) {
        return inst.withLabel(def.label(new Situation<>(inst.status(), inst.step(), inst.data(), inst.parkCount(),
                false)));
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
