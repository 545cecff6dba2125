package org.sagas.orchestrator.ordering;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.persistence.IdempotencyStore;
import org.sagas.orchestrator.resilience.ResilienceConfig;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.resilience.TransientFailure;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaTimings;

/**
 * The orders saga on a real PostgreSQL database, with scripted participants in place of the HTTP
 * ones (the participants are what these tests vary; PostgreSQL is real): the engine, the store,
 * the idempotency keys and the submission as the product wires them.
 */
final class OrdersTestbed {
    /** A scripted inventory: answers what the test says, records every call by key. */
    static final class ScriptedInventory implements InventoryPort {
        volatile Supplier<Reservation> reserve = () -> Reservation.RESERVED;
        /** How long the answer takes after the reservation took effect (a late answer). */
        volatile long latencyMillis;
        volatile Runnable release = () -> {};
        final Queue<String> reserveKeys = new ConcurrentLinkedQueue<>();
        final Queue<String> releasedKeys = new ConcurrentLinkedQueue<>();
        /** Reservation keys that took effect (a reserve that answered late still counts). */
        final Map<String, Boolean> held = new ConcurrentHashMap<>();

        @Override
        public Reservation reserve(String idempotencyKey, UUID orderId, List<OrderLine> lines, Duration timeout,
                long deadlineEpochMillis) {
            reserveKeys.add(idempotencyKey);
            Reservation answer = reserve.get();
            if (answer == Reservation.RESERVED && !releasedKeys.contains(idempotencyKey)) {
                held.putIfAbsent(idempotencyKey, Boolean.TRUE); // a release that came first makes it a no-op
            }
            if (latencyMillis > 0) {
                try {
                    Thread.sleep(latencyMillis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new TransientFailure("interrupted after it took effect");
                }
            }
            return answer;
        }

        @Override
        public void release(String idempotencyKey, String reservationKey, UUID orderId, Duration timeout,
                long deadlineEpochMillis) {
            release.run();
            releasedKeys.add(reservationKey);
            held.remove(reservationKey);
        }
    }

    /** A scripted payment provider: a ledger the test fills, and a count of look-ups. */
    static final class ScriptedProvider implements PaymentProvider {
        final Map<String, Charge> ledger = new ConcurrentHashMap<>();
        final Queue<String> lookups = new ConcurrentLinkedQueue<>();
        /** Thrown by look-ups when set. */
        volatile RuntimeException lookupFails;

        @Override
        public Charge charge(String idempotencyKey, UUID orderId, long amountCents, String currency,
                Duration timeout) {
            throw new TransientFailure("not used here");
        }

        @Override
        public Optional<Charge> lookup(String idempotencyKey, Duration timeout) {
            lookups.add(idempotencyKey);
            if (lookupFails != null) {
                throw lookupFails;
            }
            return Optional.ofNullable(ledger.get(idempotencyKey));
        }

        @Override
        public Charge refund(String refundKey, String chargeKey, Duration timeout) {
            throw new TransientFailure("not used here");
        }
    }

    final Jdbi jdbi;
    final ScriptedInventory inventory = new ScriptedInventory();
    final ScriptedProvider provider = new ScriptedProvider();
    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final OrderSaga saga;
    final SagaEngine engine;
    final IdempotencyStore keys;
    final OrderStore orders;
    final OrderService service;

    /**
     * @param degradedMode as SAGA_DEGRADED_MODE
     * @param paymentTimeout the payment step's timeout
     * @param inventoryTimeout each inventory attempt's timeout
     */
    OrdersTestbed(Jdbi jdbi, boolean degradedMode, Duration paymentTimeout, Duration inventoryTimeout,
            SagaTimings timings) {
        this.jdbi = jdbi;
        ResilienceConfig defaults = ResilienceConfig.inventoryDefaults();
        ResilientDependency stack = ResilientDependency.create(defaults.toBuilder()
                .timeout(org.sagas.orchestrator.resilience.TimeoutConfig.builder().attemptTimeout(inventoryTimeout)
                        .minimumUsefulBudget(Duration.ofMillis(5)).build())
                .retry(defaults.retry().orElseThrow().toBuilder().maxAttempts(2).backoffBase(Duration.ofMillis(5))
                        .backoffCap(Duration.ofMillis(10)).build())
                .withoutBreaker().build(), org.sagas.orchestrator.resilience.ResilienceListener.NONE);
        this.saga = new OrderSaga(new ResilientInventoryActions(inventory, stack, registry, degradedMode),
                paymentTimeout);
        this.engine = new SagaEngine(jdbi, Clock.systemUTC(), timings, () -> {}).register(saga);
        this.keys = new IdempotencyStore(jdbi, Duration.ofHours(24));
        this.orders = new OrderStore(jdbi);
        this.service = new OrderService(engine, keys, orders, Clock.systemUTC(), 0,
                org.sagas.orchestrator.tracing.Tracing.off(), registry);
    }

    static OrderRequest request(String sku, int quantity) {
        return new OrderRequest("c-1", "EUR", List.of(new OrderLine(sku, quantity, 250)));
    }

    /** The scope an open API gives {@code customer}'s keys. */
    static IdempotencyStore.KeyScope scopeOf(String customer) {
        return new IdempotencyStore.KeyScope(OrderService.customerClient(customer), OrderService.customerClient(customer));
    }

    SubmitResult submit(String key, OrderRequest request) {
        return service.submit(OrderService.customerClient(request.customerId()), key, request,
                System.currentTimeMillis() + 2_000);
    }

    List<String> reasonCodes(UUID orderId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT reason_code FROM saga_history WHERE saga_id = :id ORDER BY id")
                .bind("id", orderId).mapTo(String.class).list());
    }

    String incident(UUID orderId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT incident_cause FROM saga_instance WHERE saga_id = :id")
                .bind("id", orderId).mapTo(String.class).one());
    }

    /** The order's messages in the outbox, in order, besides its status events (see {@link #statusEvents}). */
    List<String> outboxTypes(UUID orderId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT message_type FROM outbox_message WHERE aggregate_id = :id"
                        + " AND message_type <> :status ORDER BY id, part")
                .bind("id", orderId.toString()).bind("status", OrderMessages.ORDER_STATUS_CHANGED)
                .mapTo(String.class).list());
    }

    /** How many outbox rows the order's messages take. */
    long outboxRows(UUID orderId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM outbox WHERE aggregate_id = :id")
                .bind("id", orderId.toString()).mapTo(Long.class).one());
    }

    /** The statuses of the order's OrderStatusChanged events in the outbox, in order. */
    List<String> statusEvents(UUID orderId) {
        return jdbi.withHandle(h -> h.createQuery("SELECT payload::jsonb ->> 'status' FROM outbox_message"
                        + " WHERE aggregate_id = :id AND message_type = :status ORDER BY id, part")
                .bind("id", orderId.toString()).bind("status", OrderMessages.ORDER_STATUS_CHANGED)
                .mapTo(String.class).list());
    }
}
