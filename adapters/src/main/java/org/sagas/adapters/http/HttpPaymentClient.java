package org.sagas.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.UUID;
import org.sagas.orchestrator.ordering.PaymentProvider;
import org.sagas.orchestrator.resilience.TransientFailure;

/**
 * The payment provider over HTTP ({@code POST /charges}, {@code GET /charges/{key}},
 * {@code POST /refunds}), as the sandbox provider serves it.
 *
 * <p>Each call sends its {@code Idempotency-Key} and may take at most {@code timeout}. It never
 * retries. A provider that failed (timeout, refused connection, 5xx, 408, 429, an answer it
 * cannot read) throws {@link TransientFailure}: the charge may or may not have happened, and a
 * retry with the same key or a {@link #lookup} finds out. One that rejected the request (other
 * 4xx; for a refund, 404 when it has no such charge) throws {@link ParticipantError}. Thread-safe.
 */
public final class HttpPaymentClient implements PaymentProvider {
    private final Exchange exchange;

    public HttpPaymentClient(URI baseUrl) {
        this(baseUrl, org.sagas.orchestrator.tracing.Tracing.off());
    }

    /** @param tracing when on, each call is a client span and sends its {@code traceparent} */
    public HttpPaymentClient(URI baseUrl, org.sagas.orchestrator.tracing.Tracing tracing) {
        this.exchange = new Exchange("payment", Objects.requireNonNull(baseUrl, "baseUrl"), tracing);
    }

    @Override
    public Charge charge(String idempotencyKey, UUID orderId, long amountCents, String currency, Duration timeout) {
        Exchange.Call call = exchange.post("/charges", timeout,
                        Map.of("orderId", orderId.toString(), "amountCents", amountCents, "currency", currency))
                .header(Exchange.IDEMPOTENCY_KEY, idempotencyKey);
        return status(exchange.send(call, false), call);
    }

    /** {@inheritDoc} A 404 means the provider never saw the key. */
    @Override
    public Optional<Charge> lookup(String idempotencyKey, Duration timeout) {
        Exchange.Call call = exchange.get("/charges/" + Exchange.segment(idempotencyKey), timeout);
        JsonNode answer = exchange.send(call, true);
        return answer == null ? Optional.empty() : Optional.of(status(answer, call));
    }

    @Override
    public Charge refund(String refundKey, String chargeKey, Duration timeout) {
        Exchange.Call call = exchange.post("/refunds", timeout, Map.of("chargeKey", chargeKey))
                .header(Exchange.IDEMPOTENCY_KEY, refundKey);
        return status(exchange.send(call, false), call);
    }

    private Charge status(JsonNode answer, Exchange.Call call) {
        String status = exchange.text(answer, "status", call);
        try {
            return Charge.valueOf(status);
        } catch (IllegalArgumentException e) {
            throw new TransientFailure(call.what() + ": unknown status " + status, e);
        }
    }
}
