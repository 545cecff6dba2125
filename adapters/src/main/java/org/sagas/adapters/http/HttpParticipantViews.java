package org.sagas.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.UUID;
import org.sagas.orchestrator.admin.ParticipantViews;

/**
 * The participants' ledgers for one order, over HTTP: {@code GET /reservations?orderId=} at the
 * inventory and {@code GET /charges?orderId=} at the payment provider (the sandbox services serve
 * both), with the bearer token the ledgers ask for (docs/security.md). No retries; a participant
 * that fails throws. Thread-safe.
 */
public final class HttpParticipantViews implements ParticipantViews {
    private final Exchange inventory;
    private final Exchange payment;
    private final String ledgerToken;

    /** {@code ledgerToken}: sent as {@code Authorization: Bearer}; empty: sent without one. */
    public HttpParticipantViews(URI inventoryUrl, URI paymentUrl, String ledgerToken) {
        this.inventory = new Exchange("inventory", inventoryUrl);
        this.payment = new Exchange("payment", paymentUrl);
        this.ledgerToken = ledgerToken == null ? "" : ledgerToken;
    }

    @Override
    public JsonNode reservations(UUID orderId, Duration timeout) {
        return inventory.send(withToken(inventory.get("/reservations?orderId=" + Exchange.segment(orderId.toString()),
                timeout)), false);
    }

    @Override
    public JsonNode charges(UUID orderId, Duration timeout) {
        return payment.send(withToken(payment.get("/charges?orderId=" + Exchange.segment(orderId.toString()),
                timeout)), false);
    }

    private Exchange.Call withToken(Exchange.Call call) {
        return ledgerToken.isEmpty() ? call : call.header("Authorization", "Bearer " + ledgerToken);
    }
}
