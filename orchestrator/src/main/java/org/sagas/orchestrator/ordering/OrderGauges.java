package org.sagas.orchestrator.ordering;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Order counts per status ({@code saga_orders{status}}), the age of the oldest pending order
 * ({@code saga_pending_oldest_age_seconds}) and time to a terminal status
 * ({@code saga_time_to_terminal_seconds}). Counts are read from PostgreSQL on a short period and
 * cached, so scrapes and the admission cap cost nothing. Thread-safe.
 */
public final class OrderGauges {
    private static final Logger log = LoggerFactory.getLogger(OrderGauges.class);

    private final OrderStore orders;
    private final Clock clock;
    private final Map<OrderStatus, AtomicLong> counts = new EnumMap<>(OrderStatus.class);
    private final AtomicLong oldestPendingEpochMillis = new AtomicLong();
    private final AtomicLong parked = new AtomicLong();
    private static final int TERMINAL_EVERY = 20;
    private long refreshes;

    public OrderGauges(OrderStore orders, MeterRegistry registry, Clock clock) {
        this.orders = orders;
        this.clock = clock;
        for (OrderStatus s : OrderStatus.values()) {
            AtomicLong count = new AtomicLong();
            counts.put(s, count);
            Gauge.builder("saga.orders", count, AtomicLong::get).tag("status", s.name())
                    .description("Orders per status").register(registry);
        }
        Gauge.builder("saga.pending.oldest.age.seconds", this, OrderGauges::oldestPendingAgeSeconds)
                .description("Age of the oldest order pending confirmation").register(registry);
    }

    /** Records time to terminal for orders as they end. */
    public void recordTerminals(SagaEngine engine, MeterRegistry registry) {
        Timer timer = Timer.builder("saga.time.to.terminal").publishPercentileHistogram()
                .description("From submission to CONFIRMED, CANCELLED or REJECTED").register(registry);
        engine.onTransition(instance -> {
            if (instance.isTerminal() && OrderSaga.TYPE.equals(instance.type())) {
                timer.record(Duration.between(instance.createdAt(), clock.instant()));
            }
        });
    }

    /** Orders pending confirmation, as of the last refresh. */
    public long pending() {
        return counts.get(OrderStatus.PENDING_CONFIRMATION).get();
    }

    /**
     * Orders parked on a dependency (accepted while it was unavailable), as of the last refresh: the
     * pending orders admission control caps. Unlike {@link #pending()} it leaves out orders whose
     * reservation is running (pending for those milliseconds), so under healthy load it is zero and
     * the per-client share needs no count per submission (ADR 0019).
     */
    public long parked() {
        return parked.get();
    }

    /** Reads the counts again; run periodically as a background job. */
    public void refresh() {
        try {
            // Open orders are few and counted through the status index on every refresh; terminal
            // ones only grow, so they are counted less often.
            boolean all = refreshes++ % TERMINAL_EVERY == 0;
            OrderStore.Counts fresh = orders.counts(statuses(all));
            counts.forEach((s, c) -> {
                if (all || !s.isTerminal()) {
                    c.set(fresh.byStatus().getOrDefault(s, 0L));
                }
            });
            oldestPendingEpochMillis.set(fresh.oldestPendingEpochMillis());
            parked.set(fresh.parked());
        } catch (RuntimeException e) {
            log.warn("could not refresh order gauges: {}", e.toString());
        }
    }

    private static java.util.List<OrderStatus> statuses(boolean all) {
        return java.util.Arrays.stream(OrderStatus.values()).filter(s -> all || !s.isTerminal()).toList();
    }

    private double oldestPendingAgeSeconds() {
        long oldest = oldestPendingEpochMillis.get();
        return oldest == 0 ? 0 : Math.max(0, (clock.millis() - oldest) / 1000.0);
    }
}
