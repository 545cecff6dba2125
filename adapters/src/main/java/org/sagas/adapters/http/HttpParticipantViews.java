package org.sagas.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.time.Duration;
import java.util.UUID;
import org.sagas.orchestrator.admin.ParticipantViews;

/**
 * The participants' ledgers for one order, over HTTP: {@code GET /reservations?orderId=} at the
 * inventory and {@code GET /charges?orderId=} at the payment provider (the sandbox services serve
 * both). No retries; a participant that fails throws. Thread-safe.
 */
public final class HttpParticipantViews implements ParticipantViews {
    private final Exchange inventory;
    private final Exchange payment;

    public HttpParticipantViews(URI inventoryUrl, URI paymentUrl) {
        this.inventory = new Exchange("inventory", inventoryUrl);
        this.payment = new Exchange("payment", paymentUrl);
    }

    @Override
    public JsonNode reservations(UUID orderId, Duration timeout) {
        HttpRequest request = inventory.request("/reservations?orderId=" + Exchange.segment(orderId.toString()), timeout)
                .GET().build();
        return inventory.send(request, false);
    }

    @Override
    public JsonNode charges(UUID orderId, Duration timeout) {
        HttpRequest request = payment.request("/charges?orderId=" + Exchange.segment(orderId.toString()), timeout)
                .GET().build();
        return payment.send(request, false);
    }
}
