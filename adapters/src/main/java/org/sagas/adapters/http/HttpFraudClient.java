package org.sagas.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import org.sagas.orchestrator.ordering.FraudPort;
import org.sagas.orchestrator.ordering.OrderData;
import org.sagas.orchestrator.resilience.TransientFailure;
import org.sagas.orchestrator.tracing.Tracing;

/**
 * The fraud screening service over HTTP ({@code POST /screenings}), as the sandbox fraud service
 * serves it (docs/participants.md).
 *
 * <p>Each call sends its {@code Idempotency-Key} and the caller's deadline as {@code X-Deadline}
 * (omitted when {@code deadlineEpochMillis <= 0} or {@link Long#MAX_VALUE}), and may take at most
 * {@code timeout}. It never retries. Statuses map to outcomes as for every participant
 * ({@link Exchange}): a service that failed throws {@link TransientFailure}, one that rejected the
 * request for good {@link ParticipantError}; an answer without a known verdict is a failure.
 * Thread-safe.
 */
public final class HttpFraudClient implements FraudPort {
    private final Exchange exchange;

    /** @param tracing when on, each call is a client span and sends its {@code traceparent} */
    public HttpFraudClient(URI baseUrl, Tracing tracing) {
        this.exchange = new Exchange("fraud", Objects.requireNonNull(baseUrl, "baseUrl"), tracing);
    }

    @Override
    public Screening screen(String idempotencyKey, OrderData order, Duration timeout, long deadlineEpochMillis) {
        Exchange.Call call = exchange.post("/screenings", timeout, Map.of(
                        "orderId", order.orderId().toString(), "customerId", order.customerId(),
                        "totalCents", order.totalCents(), "currency", order.currency()))
                .header(Exchange.IDEMPOTENCY_KEY, idempotencyKey)
                .deadline(deadlineEpochMillis);
        JsonNode answer = exchange.send(call, false);
        String verdict = exchange.text(answer, "verdict", call);
        return switch (verdict) {
            case "CLEARED" -> new Screening(Verdict.CLEARED, null);
            case "REFUSED" -> new Screening(Verdict.REFUSED, answer.path("rule").asText("refused"));
            default -> throw new TransientFailure("fraud POST /screenings: unknown verdict " + verdict);
        };
    }
}
