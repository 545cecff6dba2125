package org.sagas.orchestrator.saga;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.context.Scope;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.sagas.orchestrator.persistence.Inbox;
import org.sagas.orchestrator.saga.SagaEngine.Reply;
import org.sagas.orchestrator.saga.SagaEngine.ReplyOutcome;
import org.sagas.orchestrator.tracing.LogContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Applies participants' replies to the sagas waiting for them, a batch in one transaction. Thread-safe. */
final class ReplyHandler {
    private static final Logger log = LoggerFactory.getLogger(SagaEngine.class);

    private final EngineCore core;
    private final StepRunner runner;

    ReplyHandler(EngineCore core, StepRunner runner) {
        this.core = core;
        this.runner = runner;
    }

    /**
     * See {@link SagaEngine#handleReplies} and {@link SagaEngine#handleReply}: with an {@code
     * inboxConsumer}, a message id seen before is a {@link ReplyOutcome#DUPLICATE}.
     */
    List<ReplyOutcome> handle(String inboxConsumer, List<Reply> replies) {
        List<Applied<?>> results = core.jdbi.inTransaction(h -> applyAll(h, inboxConsumer, replies));
        List<ReplyOutcome> outcomes = new ArrayList<>();
        for (int i = 0; i < results.size(); i++) {
            Applied<?> applied = results.get(i);
            if (applied.transition() != null) {
                core.committed(applied.transition());
                try (Scope trace = core.inTrace(replies.get(i).trace());
                        LogContext logged = LogContext.of(applied.transition().after().id())) {
                    runner.resumeInline(applied);
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

    private List<Applied<?>> applyAll(Handle h, String inboxConsumer, List<Reply> replies) {
        Set<UUID> fresh = inboxConsumer == null ? null : Inbox.firstDeliveries(h, inboxConsumer,
                replies.stream().map(r -> r.message().messageId()).toList());
        Map<UUID, SagaInstance<?>> current = new HashMap<>();
        List<UUID> ids = replies.stream().map(Reply::sagaId).distinct().toList();
        for (SagaStore.Row row : SagaStore.lockAll(h, ids, core.registry().known())) {
            current.put(row.id(), row.as(core.definition(row.definition())));
        }
        Set<UUID> otherVersions = heldElsewhere(h, ids, current.keySet());
        List<Applied<?>> list = new ArrayList<>();
        for (Reply reply : replies) {
            SagaInstance<?> instance = current.get(reply.sagaId());
            Applied<?> applied;
            try (Scope trace = core.inTrace(reply.trace()); LogContext logged = LogContext.of(reply.sagaId())) {
                applied = fresh != null && !fresh.remove(reply.message().messageId())
                        ? Applied.nothing(ReplyOutcome.DUPLICATE)
                        : otherVersions.contains(reply.sagaId()) ? Applied.nothing(ReplyOutcome.UNKNOWN_VERSION)
                        : instance == null ? Applied.nothing(ReplyOutcome.UNKNOWN_SAGA)
                        : applyReply(h, instance, reply.message());
            }
            if (applied.transition() != null) {
                current.put(reply.sagaId(), applied.transition().after());
            }
            list.add(applied);
        }
        return list;
    }

    /**
     * Of the sagas not locked (unknown, or of a version this engine lacks: it never locks one of
     * those), the ones a live process has the version of. A saga of a version no live process has
     * (its definition gone) cannot be answered by anyone, so the batch fails as poison does: retried,
     * then dead-lettered as an incident.
     */
    private static Set<UUID> heldElsewhere(Handle h, List<UUID> ids, Set<UUID> locked) {
        List<UUID> unlocked = ids.stream().filter(id -> !locked.contains(id)).toList();
        Set<UUID> otherVersions = unlocked.isEmpty() ? Set.of() : SagaStore.heldElsewhere(h, unlocked);
        if (unlocked.size() > otherVersions.size()) {
            Set<UUID> orphans = new HashSet<>(SagaStore.existing(h, unlocked));
            orphans.removeAll(otherVersions);
            if (!orphans.isEmpty()) {
                throw new SagaException("sagas " + orphans + " run a definition version that no live process"
                        + " has (" + SagaStore.versionsOf(h, orphans) + ")");
            }
        }
        return otherVersions;
    }

    private <D> Applied<D> applyReply(Handle h, SagaInstance<D> instance, IncomingMessage message) {
        SagaDefinition<D> def = core.definitionOf(instance);
        if (instance.status() != SagaStatus.AWAITING_REPLY
                || !(def.step(instance.stepIndex()) instanceof SagaStep.Async<D> async)) {
            log.warn("saga {} got {} while {} at {}: ignored", instance.id(), message.type(), instance.status(),
                    instance.step());
            return Applied.nothing(ReplyOutcome.NOT_AWAITED);
        }
        StepResult<D> result = async.onReply().apply(instance.data(), message);
        if (result == null) {
            log.warn("saga {} at {} got unexpected {}: ignored", instance.id(), instance.step(), message.type());
            return Applied.nothing(ReplyOutcome.NOT_AWAITED);
        }
        Transition<D> t = SagaDecisions.afterReply(def, instance, result, core.clock.instant(), core.timings);
        core.write(h, def, t);
        if (core.tracing.on()) {
            // On the reply consumer's span: the trace shows where the reply took the saga.
            Span.current().setAttribute("saga.status", t.after().label());
        }
        return Applied.moved(t);
    }
}
