package org.sagas.orchestrator.ordering;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.persistence.IdempotencyStore;
import org.sagas.orchestrator.saga.ConcurrentSagaUpdate;
import org.sagas.orchestrator.saga.OperatorCommand;
import org.sagas.orchestrator.saga.OperatorOutcome;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaInstance;
import org.sagas.orchestrator.saga.SagaWithdrawn;
import org.sagas.orchestrator.tracing.LogContext;
import org.sagas.orchestrator.tracing.Tracing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Submits and cancels orders. A submission claims the idempotency key and stores the order and its saga in one
 * transaction, then runs the reservation while the client waits. A repeated key is answered from
 * how the order's submission resolved (its saga's first transition), whoever resolved it: the
 * request, or a saga-worker after the request's process died. A customer's cancel goes down the
 * operator's cancel path in the engine (docs/design.md, "Cancelling an order"). Thread-safe.
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

    /** How often a cancel tries again after the saga moved under it, before it answers {@link CancelOutcome.Contended}. */
    private static final int CANCEL_ATTEMPTS = 5;

    /**
     * Who cancels: {@code client} names the scope of their Idempotency-Key (an API key's digest name;
     * null on an open API, where the order's customer is the client), {@code customers} the customers
     * whose orders they may see (null: every customer's, an open API).
     */
    public record Caller(String client, Set<String> customers) {
        /** Whether this caller may see an order of {@code customerId}. */
        boolean sees(String customerId) {
            return customers == null || customers.contains(customerId);
        }
    }

    private final SagaEngine engine;
    private final IdempotencyStore keys;
    private final OrderStore orders;
    private final Clock clock;
    private final long answerReserveMillis;
    private final Tracing tracing;
    private final Counter withdrawals;

    /**
     * @param answerReserveMillis the end of each request's budget kept for storing its answer (the
     *     fallback to PENDING_CONFIRMATION included): the inventory call gets the budget less this
     */
    public OrderService(SagaEngine engine, IdempotencyStore keys, OrderStore orders, Clock clock,
            long answerReserveMillis) {
        this(engine, keys, orders, clock, answerReserveMillis, Tracing.off(), new SimpleMeterRegistry());
    }

    /**
     * @param tracing the edge traces each submission with it ({@link #tracing()})
     * @param registry where {@code saga_submissions_withdrawn_total} is counted
     */
    public OrderService(SagaEngine engine, IdempotencyStore keys, OrderStore orders, Clock clock,
            long answerReserveMillis, Tracing tracing, MeterRegistry registry) {
        this.tracing = tracing;
        this.withdrawals = Counter.builder("saga.submissions.withdrawn")
                .description("Submissions withdrawn, nothing stored, because their reservation could not be sent"
                        + " for the product's own want of capacity (answered 503)")
                .register(registry);
        this.engine = engine;
        this.keys = keys;
        this.orders = orders;
        this.clock = clock;
        this.answerReserveMillis = answerReserveMillis;
    }

    /**
     * Submits {@code request} from {@code client} under {@code idempotencyKey}, answering by
     * {@code deadlineEpochMillis}. The key is the client's own: another client's use of the same key is
     * another order, and neither answer tells of the other (docs/security.md). A repeated key from the
     * same client answers from what was stored: the transition that resolved the submission, read back
     * through the same {@link OrderSaga#outcome}, so a replay answers the same.
     *
     * @param client who submits, as the edge names it for quotas and logs: an API key's digest name,
     *     or {@link #customerClient} of the order's customer on an open API
     */
    public SubmitResult submit(String client, String idempotencyKey, OrderRequest request,
            long deadlineEpochMillis) {
        UUID orderId = UUID.randomUUID();
        IdempotencyStore.KeyScope scope = new IdempotencyStore.KeyScope(client, customerClient(request.customerId()));
        // The request thread's logs carry the order (and the trace) from here on, until it answers.
        try (LogContext logged = LogContext.of(orderId)) {
            return submit(orderId, scope, idempotencyKey, request, deadlineEpochMillis);
        }
    }

    /**
     * The client an order for {@code customerId} comes from when no API key names one (an open API):
     * the customer itself. Keys written before they were scoped belong to it too (migration V12).
     */
    public static String customerClient(String customerId) {
        return "customer:" + customerId;
    }

    /** The tracing submissions run under: the edge starts their server spans with it. */
    public Tracing tracing() {
        return tracing;
    }

    private SubmitResult submit(UUID orderId, IdempotencyStore.KeyScope scope, String idempotencyKey,
            OrderRequest request, long deadlineEpochMillis) {
        String hash = request.hash();
        OrderData data = new OrderData(orderId, request.customerId(), request.currency(), request.totalCents(),
                request.lines());
        Instant now = clock.instant();
        SagaInstance<OrderData> started;
        try {
            // The order is its saga's row (the orders view): claiming the key is all there is besides.
            started = engine.start(engine.starting(OrderSaga.TYPE, OrderData.class), orderId, data, h -> {
                if (!keys.claim(h, scope, idempotencyKey, hash, orderId, now)) {
                    throw new KeyTaken();
                }
            });
        } catch (KeyTaken taken) {
            return answerRepeat(scope, idempotencyKey, hash);
        }
        SubmitOutcome[] answer = new SubmitOutcome[1];
        long callDeadline = deadlineEpochMillis - answerReserveMillis;
        try {
            engine.advance(started, callDeadline, (h, t) -> {
                if (answer[0] == null && OrderSaga.resolvesSubmission(t)) {
                    answer[0] = OrderSaga.answerFor(t);
                }
            }, h -> keys.release(h, scope, idempotencyKey, orderId));
        } catch (SagaWithdrawn withdrawn) {
            // Nothing reached inventory and nothing is kept: our capacity, not inventory's failure
            // (docs/decisions/0021).
            withdrawals.increment();
            log.warn("order {} withdrawn before its reservation was sent, answered 503: {}", orderId,
                    withdrawn.reason().code());
            return new SubmitResult(new SubmitOutcome.Withdrawn(withdrawn.reason().code()), false);
        } catch (ConcurrentSagaUpdate e) {
            // Another runner took the saga over (this request outlived its lease): it stores the answer.
            log.info("order {} was moved on by another runner; answering from its key", orderId);
        }
        return answer[0] != null ? new SubmitResult(answer[0], false)
                : new SubmitResult(answerRepeat(scope, idempotencyKey, hash).outcome(), false);
    }

    private SubmitResult answerRepeat(IdempotencyStore.KeyScope scope, String key, String hash) {
        Optional<IdempotencyStore.Entry> entry = keys.find(scope, key);
        if (entry.isEmpty()) {
            // Deleted between our claim and this read (retention); treat as in flight, the client retries.
            return new SubmitResult(new SubmitOutcome.KeyConflict(SubmitOutcome.KeyConflict.Kind.IN_PROGRESS), false);
        }
        IdempotencyStore.Entry e = entry.get();
        if (!e.requestHash().equals(hash)) {
            return new SubmitResult(new SubmitOutcome.KeyConflict(SubmitOutcome.KeyConflict.Kind.REUSED), false);
        }
        if (e.completed()) {
            return new SubmitResult(new SubmitOutcome.Stored(e.orderId(), e.responseStatus(), e.responseBody()), true);
        }
        // The answer is what the order's saga stored when the submission resolved (ADR 0019).
        // Not resolved yet: the first request is running, or died and a saga-worker will resolve
        // it after the lease. Never a guess: the client asks again and gets the real outcome.
        // A key without an order (claimed by a version that named the order later) is in flight too.
        return Optional.ofNullable(e.orderId()).flatMap(orders::resolution)
                .map(r -> new SubmitResult(OrderSaga.outcome(e.orderId(), r.status(), r.cause()), true))
                .orElseGet(() -> new SubmitResult(
                        new SubmitOutcome.KeyConflict(SubmitOutcome.KeyConflict.Kind.IN_PROGRESS), false));
    }

    /**
     * Cancels order {@code orderId} for {@code caller} under {@code idempotencyKey} (docs/design.md,
     * "Cancelling an order"): an order not yet confirmed is undone through the engine's cancel, under
     * the saga's version, so a reply that moves the order at the same moment wins or loses as a
     * whole, and the outcome says which. The key is the caller's, as for a submission; an accepted
     * answer is stored with it, so a replay answers the same. Refusals write nothing.
     *
     * @param deadlineEpochMillis how long the compensation run at once (the stock's release) may take
     */
    public CancelOutcome cancel(Caller caller, String idempotencyKey, UUID orderId, long deadlineEpochMillis) {
        try (LogContext logged = LogContext.of(orderId)) {
            Optional<OrderStore.OrderView> order = orders.find(orderId);
            if (order.isEmpty() || !caller.sees(order.get().customerId())) {
                return new CancelOutcome.NotFound(orderId);
            }
            String customer = customerClient(order.get().customerId());
            IdempotencyStore.KeyScope scope = new IdempotencyStore.KeyScope(
                    caller.client() != null ? caller.client() : customer, customer);
            OrderStatus status = OrderStatus.valueOf(order.get().status());
            for (int attempt = 1; ; attempt++) {
                Optional<CancelOutcome> replay = replayCancel(scope, idempotencyKey, orderId);
                if (replay.isPresent()) {
                    return replay.get();
                }
                Optional<CancelOutcome> settled = cancelFrom(scope, idempotencyKey, orderId, status,
                        deadlineEpochMillis);
                if (settled.isPresent()) {
                    return settled.get();
                }
                status = orders.status(orderId).orElseThrow();
                if (attempt == CANCEL_ATTEMPTS) {
                    log.warn("order {}: the cancel lost the version check {} times; answered as contended", orderId,
                            attempt);
                    return new CancelOutcome.Contended(orderId, status);
                }
            }
        }
    }

    /**
     * One try at cancelling an order last seen in {@code status}; empty when the saga moved between
     * the read and the write (or a request with the same key got there first): read it again.
     */
    private Optional<CancelOutcome> cancelFrom(IdempotencyStore.KeyScope scope, String key, UUID orderId,
            OrderStatus status, long deadlineEpochMillis) {
        switch (status) {
            case CONFIRMED:
                return Optional.of(new CancelOutcome.Confirmed(orderId));
            case CANCELLED:
            case REJECTED:
            case COMPENSATING:
                // Ended, or being undone for a reason of its own: nothing to write, the answer is kept.
                return answered(scope, key, orderId, CancelOutcome.accepted(orderId, status, false));
            default:
                break;
        }
        long budget = Math.max(1, deadlineEpochMillis - clock.millis());
        OperatorOutcome outcome;
        try {
            outcome = engine.operate(orderId, OperatorCommand.CANCEL, "cancelled by the customer",
                    OrderReason.CANCELLED_BY_CUSTOMER.code(), budget, (h, written) -> {
                        if (!keys.claim(h, scope, key, cancelHash(orderId), orderId, clock.instant())) {
                            throw new KeyTaken();
                        }
                        clearIncident(h, orderId);
                    });
        } catch (KeyTaken taken) {
            return Optional.empty(); // the same key's first request wrote first: its answer is replayed
        }
        if (outcome instanceof OperatorOutcome.Applied applied) {
            OrderStatus now = OrderStatus.ofLabel(applied.now().label());
            log.info("order {} cancelled by its customer, now {}", orderId, now);
            CancelOutcome answer = CancelOutcome.accepted(orderId, now, false);
            keys.complete(scope, key, cancelHash(orderId), orderId, clock.instant(), null, answerBody(orderId, now));
            return Optional.of(answer);
        }
        if (outcome instanceof OperatorOutcome.NotFound) {
            return Optional.of(new CancelOutcome.NotFound(orderId));
        }
        // Refused (it ended between the reads) or Conflict (it moved): decide again on how it is now.
        return Optional.empty();
    }

    /** {@code answer}, stored under the key first; empty when another request took the key meanwhile. */
    private Optional<CancelOutcome> answered(IdempotencyStore.KeyScope scope, String key, UUID orderId,
            CancelOutcome answer) {
        OrderStatus status = answer instanceof CancelOutcome.Ended e ? e.status()
                : ((CancelOutcome.Undoing) answer).status();
        return keys.complete(scope, key, cancelHash(orderId), orderId, clock.instant(), null,
                answerBody(orderId, status)) ? Optional.of(answer) : Optional.empty();
    }

    /**
     * The answer a cancel's key already holds: the stored one; or, when its request died after its
     * cancel committed and before it stored the answer (the key claimed, nothing stored), the order's
     * state now. A key used for another request is {@link CancelOutcome.KeyReused}.
     */
    private Optional<CancelOutcome> replayCancel(IdempotencyStore.KeyScope scope, String key, UUID orderId) {
        Optional<IdempotencyStore.Entry> entry = keys.find(scope, key);
        if (entry.isEmpty()) {
            return Optional.empty();
        }
        if (!entry.get().requestHash().equals(cancelHash(orderId))) {
            return Optional.of(new CancelOutcome.KeyReused(orderId));
        }
        OrderStatus status = entry.get().completed()
                ? OrderStatus.valueOf(Json.read(entry.get().responseBody(), com.fasterxml.jackson.databind.JsonNode.class).get("status").asText())
                : orders.status(orderId).orElseThrow();
        return Optional.of(CancelOutcome.accepted(orderId, status, true));
    }

    /** What a cancel's key is stored for: this order's cancel (never a body's hash, which is hex). */
    private static String cancelHash(UUID orderId) {
        return "cancel:" + orderId;
    }

    private static String answerBody(UUID orderId, OrderStatus status) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("orderId", orderId);
        body.put("status", status.name());
        return Json.write(body);
    }

    /**
     * The incident mark goes when the customer cancels, as when an operator acts: the order takes
     * the cancel's path from here, and a compensation that cannot finish raises its own.
     */
    private static void clearIncident(Handle h, UUID orderId) {
        h.createUpdate("UPDATE saga_instance SET incident_cause = NULL, incident_detail = NULL, incident_at = NULL"
                + " WHERE saga_id = :id AND incident_cause IS NOT NULL").bind("id", orderId).execute();
    }

    /** The retention the keys are kept for. */
    public static Duration defaultRetention() {
        return Duration.ofHours(24);
    }
}
