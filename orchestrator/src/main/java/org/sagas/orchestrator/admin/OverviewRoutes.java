package org.sagas.orchestrator.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code GET /admin/overview}: the figures an operator looks at first, in one read-only answer —
 * orders by status, incidents by cause, pending confirmation (count, oldest), each breaker, the
 * outbox's backlog, dead letters (outbox and Kafka) and open reconciliation findings. The console's
 * overview polls it. A part that cannot be read (Kafka away) is answered as {@code null} with its
 * error under {@code unavailable}, so one broken source does not blank the rest. Terminal counts
 * may be up to {@link #TERMINAL_FRESH} old, the rest up to {@link #FRESH}. Thread-safe.
 */
final class OverviewRoutes {
    private static final Logger log = LoggerFactory.getLogger(OverviewRoutes.class);
    /** The state shown for a dependency configured without a breaker (SAGA_INVENTORY_LAYERS). */
    static final String NO_BREAKER = "NO_BREAKER";
    static final Duration FRESH = Duration.ofSeconds(1);
    static final Duration TERMINAL_FRESH = Duration.ofSeconds(30);

    private final OrderStore orders;
    private final SagaEngine engine;
    private final OverviewSources sources;
    private final KafkaDeadLetters kafka;
    private final Clock clock;
    private Map<String, Object> last;
    private Instant lastAt;
    private Map<OrderStatus, Long> terminal;
    private Instant terminalAt;

    OverviewRoutes(OrderStore orders, SagaEngine engine, OverviewSources sources, KafkaDeadLetters kafka,
            Clock clock) {
        this.orders = orders;
        this.engine = engine;
        this.sources = sources;
        this.kafka = kafka;
        this.clock = clock;
    }

    void register(RoutesConfig routes) {
        routes.get("/admin/overview", this::overview);
    }

    private void overview(Context ctx) {
        AdminServer.json(ctx, 200, current());
    }

    /**
     * Every open console polls this: one answer serves all of them for {@link #FRESH}, and the
     * terminal statuses (which only grow, and are most of the table) are counted again only every
     * {@link #TERMINAL_FRESH}; the open ones, which an operator watches, on every answer.
     */
    private synchronized Map<String, Object> current() {
        Instant now = clock.instant();
        if (last != null && now.isBefore(lastAt.plus(FRESH))) {
            return last;
        }
        last = compute(now);
        lastAt = now;
        return last;
    }

    private Map<String, Object> compute(Instant now) {
        Map<String, Object> body = new LinkedHashMap<>();
        Map<String, String> unavailable = new TreeMap<>();
        body.put("at", now);
        boolean withTerminal = terminalAt == null || !now.isBefore(terminalAt.plus(TERMINAL_FRESH));
        List<OrderStatus> counted = Arrays.stream(OrderStatus.values()).filter(s -> withTerminal || !s.isTerminal())
                .toList();
        OrderStore.Counts counts = orders.counts(counted);
        if (withTerminal) {
            terminal = new EnumMap<>(OrderStatus.class);
            counted.stream().filter(OrderStatus::isTerminal).forEach(s -> terminal.put(s, counts.byStatus()
                    .getOrDefault(s, 0L)));
            terminalAt = now;
        }
        Map<String, Long> byStatus = new LinkedHashMap<>();
        for (OrderStatus s : OrderStatus.values()) {
            byStatus.put(s.name(), s.isTerminal() ? terminal.get(s) : counts.byStatus().getOrDefault(s, 0L));
        }
        body.put("orders", byStatus);
        Map<String, Object> pending = new LinkedHashMap<>();
        pending.put("count", byStatus.get(OrderStatus.PENDING_CONFIRMATION.name()));
        long oldest = counts.oldestPendingEpochMillis();
        pending.put("oldestCreatedAt", oldest == 0 ? null : Instant.ofEpochMilli(oldest));
        pending.put("oldestAgeSeconds", oldest == 0 ? null : Math.max(0, now.toEpochMilli() - oldest) / 1000);
        body.put("pendingConfirmation", pending);
        Map<String, Long> incidents = new TreeMap<>();
        engine.incidentCounts().forEach((cause, n) -> incidents.put(cause.name(), n));
        body.put("incidents", incidents);
        body.put("breakers", part("breakers", unavailable, () -> {
            List<Map<String, Object>> list = new ArrayList<>();
            new TreeMap<>(sources.breakers()).forEach((dependency, state) -> list.add(Map.of("dependency",
                    dependency, "state", state.map(Enum::name).orElse(NO_BREAKER))));
            return list;
        }));
        body.put("outbox", part("outbox", unavailable, sources::outbox));
        body.put("kafkaDeadLetters", part("kafkaDeadLetters", unavailable, kafka::topics));
        body.put("openFindings", part("openFindings", unavailable, () -> new TreeMap<>(sources.openFindings())));
        body.put("unavailable", unavailable);
        return body;
    }

    private static Object part(String name, Map<String, String> unavailable, java.util.function.Supplier<?> read) {
        try {
            return read.get();
        } catch (RuntimeException e) {
            // Visible twice: in the answer (the console shows it) and in the log.
            log.warn("overview: {} unavailable: {}", name, e.toString());
            unavailable.put(name, e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage());
            return null;
        }
    }
}
