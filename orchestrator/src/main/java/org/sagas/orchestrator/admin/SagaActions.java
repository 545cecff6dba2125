package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import java.util.Optional;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ordering.OrderKeys;
import org.sagas.orchestrator.ordering.OrderMessages;
import org.sagas.orchestrator.ordering.OrderSaga;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.MigrationOutcome;
import org.sagas.orchestrator.saga.OperatorCommand;
import org.sagas.orchestrator.saga.OperatorOutcome;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaInstance;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An operator's actions on one order's saga: retry, cancel, settle a lost payment answer. Each is
 * written under the saga's version (the loser of a race with the engine gets a conflict and the
 * current state), clears the saga's incident mark, and is audited — in the same transaction when
 * it wrote something. Each is safe to repeat. Free text stays in the audit: the saga's history
 * (which customers read) says only that an operator acted. Thread-safe.
 */
final class SagaActions {
    /** The inbox consumer of payment outcomes an operator sets. */
    static final String CONSUMER = "operator";
    private static final String CANCELLED = "cancelled";
    private static final Logger log = LoggerFactory.getLogger(SagaActions.class);

    private final SagaEngine engine;
    private final Jdbi jdbi;
    private final AuditLog audit;
    private final long stepBudgetMillis;

    SagaActions(SagaEngine engine, Jdbi jdbi, AuditLog audit, long stepBudgetMillis) {
        this.engine = engine;
        this.jdbi = jdbi;
        this.audit = audit;
        this.stepBudgetMillis = stepBudgetMillis;
    }

    ActionResult retry(Operator who, UUID orderId, String reason, UUID batchId) {
        return operate(who, OperatorCommand.RETRY, orderId, reason, batchId);
    }

    ActionResult cancel(Operator who, UUID orderId, String reason, UUID batchId) {
        return operate(who, OperatorCommand.CANCEL, orderId, reason, batchId);
    }

    private ActionResult operate(Operator who, OperatorCommand command, UUID orderId, String reason, UUID batchId) {
        String action = command.name().toLowerCase(Locale.ROOT);
        String history = (command == OperatorCommand.RETRY ? "retried" : "cancelled") + " by an operator";
        OperatorOutcome outcome = engine.operate(orderId, command, history, CANCELLED, stepBudgetMillis,
                (h, written) -> {
                    clearIncident(h, orderId);
                    AuditLog.record(h, new AuditLog.Line(who, action, orderId.toString(), reason, "APPLIED",
                            detail(SagaState.of(written)), batchId));
                });
        ActionResult result;
        if (outcome instanceof OperatorOutcome.Applied applied) {
            log.info("order {}: {} by operator {} applied, now {}", orderId, action, who.name(), applied.now().label());
            return new ActionResult.Applied(SagaState.of(applied.now()));
        } else if (outcome instanceof OperatorOutcome.Refused refused) {
            result = new ActionResult.Refused(SagaState.of(refused.now()), refused.why());
        } else if (outcome instanceof OperatorOutcome.Conflict conflict) {
            result = new ActionResult.Conflict(SagaState.of(conflict.now()), conflict.why());
        } else {
            result = new ActionResult.NotFound(orderId);
        }
        recordRefusal(who, action, orderId, reason, result, batchId);
        return result;
    }

    /**
     * Moves the order's saga to definition version {@code toVersion} through the declared mapping of
     * states (docs/design.md, "Moving orders to another version"), audited in the same transaction;
     * an order whose state has no mapping is refused with the reason, and audited so.
     */
    ActionResult migrate(Operator who, UUID orderId, int toVersion, String reason, UUID batchId) {
        MigrationOutcome outcome = engine.migrate(orderId, toVersion, "moved by an operator", false,
                (h, written) -> AuditLog.record(h, new AuditLog.Line(who, Batch.MIGRATE, orderId.toString(), reason,
                        "APPLIED", detail(SagaState.of(written), "now on version " + toVersion), batchId)));
        ActionResult result;
        if (outcome instanceof MigrationOutcome.Moved moved) {
            log.info("order {}: moved to version {} by operator {}, at {}", orderId, toVersion, who.name(),
                    moved.now().step());
            return new ActionResult.Applied(SagaState.of(moved.now()));
        } else if (outcome instanceof MigrationOutcome.Refused refused) {
            result = new ActionResult.Refused(SagaState.of(refused.now()), refused.why());
        } else if (outcome instanceof MigrationOutcome.Conflict conflict) {
            result = new ActionResult.Conflict(SagaState.of(conflict.now()), conflict.why());
        } else {
            result = new ActionResult.NotFound(orderId);
        }
        recordRefusal(who, Batch.MIGRATE, orderId, reason, result, batchId);
        return result;
    }

    /**
     * What moving the order to {@code toVersion} would make of it, writing nothing: {@code from} and
     * {@code to} (version, engine status, step, order status), or {@code refused} with the reason.
     */
    java.util.Map<String, Object> planMigration(UUID orderId, int toVersion) {
        MigrationOutcome outcome = engine.migrate(orderId, toVersion, "dry run", true, (h, written) -> { });
        java.util.Map<String, Object> plan = new java.util.LinkedHashMap<>();
        plan.put("orderId", orderId);
        if (outcome instanceof MigrationOutcome.Moved moved) {
            plan.put("from", where(moved.before()));
            plan.put("to", where(moved.now()));
            plan.put("refused", null);
        } else if (outcome instanceof MigrationOutcome.Refused refused) {
            plan.put("from", where(refused.now()));
            plan.put("to", null);
            plan.put("refused", refused.why());
        } else if (outcome instanceof MigrationOutcome.Conflict conflict) {
            plan.put("from", where(conflict.now()));
            plan.put("to", null);
            plan.put("refused", conflict.why());
        } else {
            plan.put("from", null);
            plan.put("to", null);
            plan.put("refused", "not found");
        }
        return plan;
    }

    private static java.util.Map<String, Object> where(SagaInstance<?> s) {
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        m.put("definitionVersion", s.definition().version());
        m.put("sagaStatus", s.status().name());
        m.put("step", s.step());
        m.put("status", s.label());
        return m;
    }

    /**
     * Settles a {@code PAYMENT_UNKNOWN} order as the provider's reply would have: {@code captured}
     * confirms it, otherwise it is cancelled (stock released). The reply has a message id derived
     * from the order and the outcome, so the inbox keeps a repeat to one effect.
     */
    ActionResult paymentOutcome(Operator who, UUID orderId, boolean captured, String reason) {
        String outcomeName = captured ? "CAPTURED" : "DECLINED";
        String chargeKey = OrderKeys.charge(orderId);
        UUID messageId = UUID.nameUUIDFromBytes(("operator:" + chargeKey + ":" + outcomeName)
                .getBytes(StandardCharsets.UTF_8));
        Optional<SagaInstance<?>> found = engine.find(orderId);
        ActionResult result;
        if (found.isEmpty()) {
            result = new ActionResult.NotFound(orderId);
        } else if (!found.get().type().equals(OrderSaga.TYPE)
                || OrderStatus.ofLabel(found.get().label()) != OrderStatus.PAYMENT_UNKNOWN) {
            result = alreadyApplied(messageId) ? new ActionResult.AlreadyApplied(SagaState.of(found.get()))
                    : new ActionResult.Refused(SagaState.of(found.get()), "only a PAYMENT_UNKNOWN order takes a"
                            + " payment outcome; this one is " + found.get().label());
        } else {
            ObjectNode body = Json.mapper().createObjectNode().put("orderId", orderId.toString())
                    .put("idempotencyKey", chargeKey).put("reason", "settled by an operator");
            String type = captured ? OrderMessages.PAYMENT_CAPTURED : OrderMessages.PAYMENT_DECLINED;
            SagaEngine.ReplyOutcome reply = engine.handleReply(CONSUMER, new IncomingMessage(messageId, type,
                    orderId.toString(), orderId.toString(), body), orderId);
            SagaState now = engine.find(orderId).map(SagaState::of).orElse(SagaState.of(found.get()));
            result = switch (reply) {
                case APPLIED -> new ActionResult.Applied(now);
                case DUPLICATE -> new ActionResult.AlreadyApplied(now);
                case NOT_AWAITED -> new ActionResult.Conflict(now, "the payment's answer arrived first; the order is "
                        + now.status());
                // A version this process lacks: another build settles it (docs/design.md, "A second version of a saga").
                case UNKNOWN_SAGA, UNKNOWN_VERSION -> new ActionResult.NotFound(orderId);
            };
            if (reply == SagaEngine.ReplyOutcome.APPLIED) {
                jdbi.useHandle(h -> clearIncident(h, orderId));
                log.info("order {}: payment settled as {} by operator {}, now {}", orderId, outcomeName, who.name(),
                        now.status());
            }
        }
        String detail = result instanceof ActionResult.NotFound ? null : detail(stateOf(result), outcomeName);
        audit.record(new AuditLog.Line(who, "payment-outcome", orderId.toString(), reason, result.outcome(), detail,
                null));
        return result;
    }

    private boolean alreadyApplied(UUID messageId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM inbox WHERE consumer = :c AND message_id = :m")
                .bind("c", CONSUMER).bind("m", messageId).mapTo(Long.class).one() > 0);
    }

    private void recordRefusal(Operator who, String action, UUID orderId, String reason, ActionResult result,
            UUID batchId) {
        String detail = result instanceof ActionResult.NotFound ? null : detail(stateOf(result));
        if (result instanceof ActionResult.Refused r) {
            detail = detail(r.now(), r.why());
        }
        audit.record(new AuditLog.Line(who, action, orderId.toString(), reason, result.outcome(), detail, batchId));
        log.info("order {}: {} by operator {} not applied: {}", orderId, action, who.name(), result.outcome());
    }

    /** The incident mark goes when an operator acts: from now on the saga is the operator's doing. */
    private static void clearIncident(Handle h, UUID sagaId) {
        h.createUpdate("UPDATE saga_instance SET incident_cause = NULL, incident_detail = NULL, incident_at = NULL"
                + " WHERE saga_id = :id AND incident_cause IS NOT NULL").bind("id", sagaId).execute();
    }

    static SagaState stateOf(ActionResult r) {
        if (r instanceof ActionResult.Applied a) {
            return a.now();
        } else if (r instanceof ActionResult.AlreadyApplied a) {
            return a.now();
        } else if (r instanceof ActionResult.Refused a) {
            return a.now();
        } else if (r instanceof ActionResult.Conflict a) {
            return a.now();
        }
        return null;
    }

    private static String detail(SagaState state) {
        return Json.write(state);
    }

    private static String detail(SagaState state, String note) {
        ObjectNode node = Json.mapper().valueToTree(state);
        node.put("note", note);
        return node.toString();
    }
}
