package org.sagas.adapters.http;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.sagas.orchestrator.ordering.OrderLine;
import org.sagas.orchestrator.ordering.InventoryPort;
import org.sagas.orchestrator.resilience.TransientFailure;
import org.sagas.orchestrator.tracing.Tracing;

/**
 * The inventory service over HTTP ({@code POST /reservations},
 * {@code POST /reservations/{key}/release}), as the sandbox inventory serves it.
 *
 * <p>Each call sends its {@code Idempotency-Key} and the caller's deadline as {@code X-Deadline}
 * (omitted when {@code deadlineEpochMillis <= 0} or {@link Long#MAX_VALUE}), and may take at most
 * {@code timeout}. It never retries. A service that failed (timeout, refused connection, 5xx, 408,
 * 429, an answer it cannot read) throws {@link TransientFailure}; one that rejected the request
 * (other 4xx) throws {@link ParticipantError}. Thread-safe.
 */
public final class HttpInventoryClient implements InventoryPort {
    private final Exchange exchange;

    public HttpInventoryClient(URI baseUrl) {
        this(baseUrl, Tracing.off());
    }

    /** @param tracing when on, each call is a client span and sends its {@code traceparent} */
    public HttpInventoryClient(URI baseUrl, Tracing tracing) {
        this.exchange = new Exchange("inventory", Objects.requireNonNull(baseUrl, "baseUrl"), tracing);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A key whose reservation was released, or whose release arrived first, holds nothing: the
     * service answers {@code RELEASED}, and this returns {@link Reservation#OUT_OF_STOCK}, so the
     * saga never proceeds on stock that is not held.
     */
    @Override
    public Reservation reserve(String idempotencyKey, UUID orderId, List<OrderLine> lines, Duration timeout,
            long deadlineEpochMillis) {
        List<Map<String, Object>> body = lines.stream()
                .<Map<String, Object>>map(line -> Map.of("sku", line.sku(), "quantity", line.quantity()))
                .toList();
        Exchange.Call call = exchange.post("/reservations", timeout,
                        Map.of("orderId", orderId.toString(), "lines", body))
                .deadline(deadlineEpochMillis)
                .header(Exchange.IDEMPOTENCY_KEY, idempotencyKey);
        JsonNode answer = exchange.send(call, false);
        String status = exchange.text(answer, "status", call);
        return switch (status) {
            case "RESERVED" -> Reservation.RESERVED;
            case "OUT_OF_STOCK", "RELEASED" -> Reservation.OUT_OF_STOCK;
            default -> throw new TransientFailure("inventory POST /reservations: unknown status " + status);
        };
    }

    @Override
    public void release(String idempotencyKey, String reservationKey, UUID orderId, Duration timeout,
            long deadlineEpochMillis) {
        Exchange.Call call = exchange.post("/reservations/" + Exchange.segment(reservationKey) + "/release",
                        timeout, Map.of("orderId", orderId.toString()))
                .deadline(deadlineEpochMillis)
                .header(Exchange.IDEMPOTENCY_KEY, idempotencyKey);
        exchange.send(call, false);
    }

    /**
     * Looks up the reservation under {@code reservationKey} without changing anything, and builds
     * (but does not send) a reservation request: the same HTTP client, connection pool and JSON
     * writer as {@link #reserve}, for warming them before the first order (ADR 0016).
     *
     * @return whether the service holds a reservation under that key
     * @throws TransientFailure when the service failed
     */
    public boolean probe(String reservationKey, Duration timeout) {
        exchange.post("/reservations", timeout, Map.of("orderId", reservationKey,
                "lines", List.of(Map.of("sku", "probe", "quantity", 1))));
        return exchange.send(exchange.get("/reservations/" + Exchange.segment(reservationKey), timeout), true)
                != null;
    }
}
