package org.sagas.orchestrator.ordering;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.resilience.ParticipantRefused;
import org.sagas.orchestrator.saga.IncidentCause;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes every {@code PAYMENT_UNKNOWN} order end (docs/design.md, "Reconciliation"). It asks the provider what
 * happened under the order's charge key: a capture or a decline is fed to the saga as the reply
 * that never came (with a deterministic message id, so the inbox keeps it to one effect). When the
 * provider never saw the key and the command is no longer in flight — dead-lettered, or neither
 * queued in the outbox nor answered for {@code resendAfter} — the charge is sent again under the
 * same key (so at most one charge), at most {@code maxResends} times; then the order is the
 * {@link IncidentCause#PAYMENT_UNRESOLVED} incident. It goes round all unknown orders by id with a
 * cursor kept between passes, so orders it cannot settle never keep it from later ones. The work
 * of a {@link org.sagas.orchestrator.lifecycle.PeriodicJob} named {@link #CONSUMER}, one {@link
 * #pass} per period, which reports a pass that fails; thread-safe.
 */
public final class PaymentReconciler {
    public static final String CONSUMER = "payment-reconciler";
    private static final Logger log = LoggerFactory.getLogger(PaymentReconciler.class);
    private static final int PAGE = 100;
    /** Most orders looked up per pass; the cursor takes the pass after on from there. */
    static final int MAX_PER_PASS = 500;

    private final OrderStore orders;
    private final SagaEngine engine;
    private final PaymentProvider provider;
    private final Duration resendAfter;
    private final int maxResends;
    private UUID cursor;

    /** What one pass did. */
    public record Pass(int lookedUp, int settled, int resent, int givenUp) {}

    /**
     * @param resendAfter how long an order's charge must have been quiet (not queued, no reply)
     *     before the reconciler takes it for lost
     * @param maxResends how many times a charge is sent again before the order is an incident
     */
    public PaymentReconciler(OrderStore orders, SagaEngine engine, PaymentProvider provider, Duration resendAfter,
            int maxResends) {
        this.orders = orders;
        this.engine = engine;
        this.provider = provider;
        this.resendAfter = resendAfter;
        this.maxResends = maxResends;
    }

    /** One pass over up to {@link #MAX_PER_PASS} unknown orders, from where the last one stopped. */
    public synchronized Pass pass() {
        int lookedUp = 0;
        int settled = 0;
        int resent = 0;
        int givenUp = 0;
        boolean wrapped = false;
        while (lookedUp < MAX_PER_PASS) {
            List<OrderStore.UnknownPayment> page = orders.unknownPayments(cursor, PAGE);
            if (page.isEmpty()) {
                cursor = null;
                if (wrapped) {
                    break;
                }
                wrapped = true; // went round: start again from the first, once per pass
                continue;
            }
            for (OrderStore.UnknownPayment order : page) {
                if (lookedUp >= MAX_PER_PASS) {
                    break;
                }
                cursor = order.orderId();
                lookedUp++;
                switch (reconcile(order)) {
                    case SETTLED -> settled++;
                    case RESENT -> resent++;
                    case GIVEN_UP -> givenUp++;
                    default -> { }
                }
            }
            if (page.size() < PAGE) {
                cursor = null;
                break;
            }
        }
        return new Pass(lookedUp, settled, resent, givenUp);
    }

    private enum Outcome { SETTLED, RESENT, GIVEN_UP, WAITING }

    private Outcome reconcile(OrderStore.UnknownPayment order) {
        UUID orderId = order.orderId();
        String key = OrderKeys.charge(orderId);
        Optional<PaymentProvider.Charge> charge;
        try {
            charge = provider.lookup(key, Duration.ofSeconds(2));
        } catch (ParticipantRefused e) {
            // Asking again cannot help: without the provider's answer only an operator can settle it.
            engine.raiseIncident(orderId, IncidentCause.PAYMENT_UNRESOLVED, "the provider refused the look-up of "
                    + key + ": " + e.getMessage());
            return Outcome.GIVEN_UP;
        } catch (RuntimeException e) {
            log.info("order {} payment still unknown: provider look-up failed ({})", orderId, e.getMessage());
            return Outcome.WAITING;
        }
        if (charge.isPresent()) {
            return feed(orderId, key, charge.get()) ? Outcome.SETTLED : Outcome.WAITING;
        }
        boolean deadLettered = order.incident() == IncidentCause.COMMAND_DEAD_LETTERED;
        boolean inFlight = order.chargeQueued()
                || (!deadLettered && order.quietMillis() < resendAfter.toMillis());
        if (inFlight) {
            return Outcome.WAITING;
        }
        if (order.resends() >= maxResends) {
            engine.raiseIncident(orderId, IncidentCause.PAYMENT_UNRESOLVED, "the provider has no charge " + key
                    + " after " + order.resends() + " resends; the last one quiet for " + order.quietMillis() + " ms");
            return Outcome.GIVEN_UP;
        }
        String why = (deadLettered ? "the charge command was dead-lettered" : "the provider never saw charge " + key
                + " in " + order.quietMillis() + " ms") + "; resend " + (order.resends() + 1) + " of " + maxResends;
        return engine.resendCommand(orderId, why).isPresent() ? Outcome.RESENT : Outcome.WAITING;
    }

    private boolean feed(UUID orderId, String key, PaymentProvider.Charge charge) {
        String type = charge == PaymentProvider.Charge.CAPTURED ? OrderMessages.PAYMENT_CAPTURED
                : OrderMessages.PAYMENT_DECLINED;
        ObjectNode body = Json.mapper().createObjectNode().put("orderId", orderId.toString())
                .put("idempotencyKey", key).put("reason", charge.name().toLowerCase(java.util.Locale.ROOT))
                .put("code", OrderReason.PAYMENT_DECLINED.code());
        UUID messageId = UUID.nameUUIDFromBytes(("reconciled:" + key).getBytes(StandardCharsets.UTF_8));
        var outcome = engine.handleReply(CONSUMER, new IncomingMessage(messageId, type, orderId.toString(),
                orderId.toString(), body), orderId);
        log.info("order {} payment reconciled from the provider's ledger: {} ({})", orderId, charge, outcome);
        return outcome == SagaEngine.ReplyOutcome.APPLIED;
    }
}
