package org.sagas.orchestrator.ordering;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.saga.IncomingMessage;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds orders whose payment answer was lost ({@code PAYMENT_UNKNOWN}) and asks the provider what
 * happened under the order's charge key: a capture or a decline is fed to the saga as the reply
 * that never came (with a deterministic message id, so the inbox keeps it to one effect); an
 * unknown key is left for the payment worker, which still holds the command. Thread-safe.
 */
public final class PaymentReconciler {
    public static final String CONSUMER = "payment-reconciler";
    private static final Logger log = LoggerFactory.getLogger(PaymentReconciler.class);

    private final OrderStore orders;
    private final SagaEngine engine;
    private final PaymentProvider provider;

    public PaymentReconciler(OrderStore orders, SagaEngine engine, PaymentProvider provider) {
        this.orders = orders;
        this.engine = engine;
        this.provider = provider;
    }

    /** One reconciliation pass; returns how many orders it settled. */
    public int pass() {
        int settled = 0;
        try {
            List<UUID> unknown = orders.oldestIn(OrderStatus.PAYMENT_UNKNOWN, 100);
            for (UUID orderId : unknown) {
                settled += settle(orderId) ? 1 : 0;
            }
        } catch (RuntimeException e) {
            log.warn("reconciliation pass failed; the next one retries: {}", e.toString());
        }
        return settled;
    }

    private boolean settle(UUID orderId) {
        String key = OrderKeys.charge(orderId);
        Optional<PaymentProvider.Charge> charge;
        try {
            charge = provider.lookup(key, Duration.ofSeconds(2));
        } catch (RuntimeException e) {
            log.info("order {} payment still unknown: provider look-up failed ({})", orderId, e.getMessage());
            return false;
        }
        if (charge.isEmpty()) {
            log.info("order {} payment still unknown: the provider has no charge {} yet", orderId, key);
            return false;
        }
        String type = charge.get() == PaymentProvider.Charge.CAPTURED ? OrderMessages.PAYMENT_CAPTURED
                : OrderMessages.PAYMENT_DECLINED;
        ObjectNode body = Json.mapper().createObjectNode().put("orderId", orderId.toString())
                .put("idempotencyKey", key).put("reason", charge.get().name().toLowerCase(java.util.Locale.ROOT));
        UUID messageId = UUID.nameUUIDFromBytes(("reconciled:" + key).getBytes(StandardCharsets.UTF_8));
        var outcome = engine.handleReply(CONSUMER, new IncomingMessage(messageId, type, orderId.toString(),
                orderId.toString(), body), orderId);
        log.info("order {} payment reconciled from the provider's ledger: {} ({})", orderId, charge.get(), outcome);
        return outcome == SagaEngine.ReplyOutcome.APPLIED;
    }
}
