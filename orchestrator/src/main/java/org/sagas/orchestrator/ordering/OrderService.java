package org.sagas.orchestrator.ordering;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.persistence.IdempotencyStore;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaInstance;
import org.sagas.orchestrator.saga.Transition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits orders: claims the idempotency key and stores the order and its saga in one
 * transaction, then runs the reservation while the client waits. Thread-safe.
 */
public final class OrderService {
    private static final Logger log = LoggerFactory.getLogger(OrderService.class);

    /** Thrown inside the creating transaction when the key is taken, to roll it back. */
    private static final class KeyTaken extends RuntimeException {
        private static final long serialVersionUID = 1L;

        KeyTaken() {
            super(null, null, false, false);
        }
    }

    private final SagaEngine engine;
    private final OrderSaga saga;
    private final IdempotencyStore keys;
    private final OrderStore orders;
    private final Clock clock;
    private final long answerReserveMillis;

    /**
     * @param answerReserveMillis the end of each request's budget kept for storing its answer (the
     *     fallback to PENDING_CONFIRMATION included): the inventory call gets the budget less this
     */
    public OrderService(SagaEngine engine, OrderSaga saga, IdempotencyStore keys, OrderStore orders, Clock clock,
            long answerReserveMillis) {
        this.engine = engine;
        this.saga = saga;
        this.keys = keys;
        this.orders = orders;
        this.clock = clock;
        this.answerReserveMillis = answerReserveMillis;
    }

    /**
     * Submits {@code request} under {@code idempotencyKey}, answering by {@code deadlineEpochMillis}.
     * A repeated key answers from what was stored (DESIGN.md section 5).
     */
    public SubmitResult submit(String idempotencyKey, OrderRequest request, long deadlineEpochMillis) {
        UUID orderId = UUID.randomUUID();
        String hash = request.hash();
        OrderData data = new OrderData(orderId, request.customerId(), request.currency(), request.totalCents(),
                request.lines());
        Instant now = clock.instant();
        SagaInstance<OrderData> started;
        try {
            started = engine.start(saga, orderId, data, h -> {
                if (!OrderStore.insertClaiming(h, keys, idempotencyKey, hash, now, data,
                        OrderStatus.PENDING_CONFIRMATION)) {
                    throw new KeyTaken();
                }
            });
        } catch (KeyTaken taken) {
            return answerRepeat(idempotencyKey, hash);
        }
        SubmitResult[] answer = new SubmitResult[1];
        long callDeadline = deadlineEpochMillis - answerReserveMillis;
        SagaInstance<OrderData> after = engine.advance(saga, started, callDeadline, (h, t) -> {
            answer[0] = answerFor(orderId, t);
            keys.complete(h, idempotencyKey, answer[0].httpStatus(), answer[0].body());
        });
        if (answer[0] == null) {
            // The step ended without a final transition of its own (cannot happen for orders); answer from state.
            answer[0] = answer(orderId, OrderStatus.valueOf(after.label()), false);
            keys.complete(idempotencyKey, answer[0].httpStatus(), answer[0].body());
        }
        return answer[0];
    }

    private static SubmitResult answerFor(UUID orderId, Transition<OrderData> t) {
        OrderStatus status = OrderStatus.valueOf(t.after().label());
        if (status == OrderStatus.REJECTED && t.reason() != null && t.reason().startsWith(OrderSaga.INVENTORY_UNAVAILABLE)) {
            return inventoryUnavailable(orderId);
        }
        return answer(orderId, status, false);
    }

    private SubmitResult answerRepeat(String key, String hash) {
        Optional<IdempotencyStore.Entry> entry = keys.find(key);
        if (entry.isEmpty()) {
            // Deleted between our claim and this read (retention); treat as in flight, the client retries.
            return conflict("Idempotency-Key is being processed", 409);
        }
        IdempotencyStore.Entry e = entry.get();
        if (!e.requestHash().equals(hash)) {
            return conflict("Idempotency-Key was used with a different request body", 422);
        }
        if (e.completed()) {
            return new SubmitResult(e.responseStatus(), e.orderId(), e.responseBody(), true);
        }
        if (e.createdAt().plus(engine.timings().lease()).isAfter(clock.instant())) {
            return conflict("a request with this Idempotency-Key is still in progress", 409);
        }
        // The first request died before answering; its saga lives on. Answer from where it is now.
        OrderStatus status = orders.status(e.orderId()).orElse(OrderStatus.PENDING_CONFIRMATION);
        SubmitResult result = answer(e.orderId(), status, true);
        keys.complete(key, result.httpStatus(), result.body());
        log.info("idempotency key {} completed late for order {} ({})", key, e.orderId(), status);
        return result;
    }

    private static SubmitResult answer(UUID orderId, OrderStatus status, boolean replayed) {
        if (status == OrderStatus.REJECTED) {
            return problem(422, "out-of-stock", "Out of stock",
                    "not enough stock for this order; it is stored as REJECTED", orderId, replayed);
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("orderId", orderId);
        body.put("status", status.name());
        return new SubmitResult(202, orderId, Json.write(body), replayed);
    }

    private static SubmitResult conflict(String detail, int status) {
        return problem(status, "idempotency-key", status == 409 ? "Request in progress" : "Idempotency-Key reused",
                detail, null, false);
    }

    /** Inventory could not be reached and degraded mode is off: the order was not accepted. */
    private static SubmitResult inventoryUnavailable(UUID orderId) {
        return problem(503, "inventory-unavailable", "Inventory unavailable",
                "inventory could not be reached and degraded mode is off; the order is REJECTED", orderId, false);
    }

    /** A problem+json answer (RFC 9457), naming the order when there is one. */
    private static SubmitResult problem(int status, String type, String title, String detail, UUID orderId,
            boolean replayed) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("type", "/problems/" + type);
        body.put("title", title);
        body.put("status", status);
        body.put("detail", detail);
        if (orderId != null) {
            body.put("orderId", orderId);
        }
        return new SubmitResult(status, orderId, Json.write(body), replayed);
    }

    /** The retention the keys are kept for. */
    public static Duration defaultRetention() {
        return Duration.ofHours(24);
    }
}
