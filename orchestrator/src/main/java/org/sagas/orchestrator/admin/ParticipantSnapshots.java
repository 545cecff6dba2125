package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the participants hold for an order, asked live and side by side with a short timeout. A
 * participant that does not answer in time is shown with what it said last time, marked stale
 * (or with nothing, if it never answered for this order): an operator sees the gap instead of
 * waiting on it. Keeps the last answers of the most recently inspected orders. Thread-safe.
 */
final class ParticipantSnapshots implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ParticipantSnapshots.class);
    private static final int REMEMBERED = 2_000;

    /**
     * One participant's view.
     *
     * @param stale true when the participant did not answer now: {@code value} is from {@code fetchedAt}, or null
     * @param error why it did not answer now
     */
    record Snapshot(boolean stale, Instant fetchedAt, String error, JsonNode value) {}

    private final ParticipantViews views;
    private final Duration timeout;
    private final Clock clock;
    private final Map<String, Snapshot> lastGood = new LinkedHashMap<>(64, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Snapshot> eldest) {
            return size() > REMEMBERED;
        }
    };
    /**
     * Eight threads and a queue of 32: a call waiting for a thread counts against its timeout like
     * one waiting for an answer, and beyond the queue a view is shown stale at once ("busy").
     */
    private final ExecutorService calls = new ThreadPoolExecutor(8, 8, 0, TimeUnit.MILLISECONDS,
            new ArrayBlockingQueue<>(32), r -> {
                Thread t = new Thread(r, "admin-participant-view");
                t.setDaemon(true);
                return t;
            });

    ParticipantSnapshots(ParticipantViews views, Duration timeout, Clock clock) {
        this.views = views;
        this.timeout = timeout;
        this.clock = clock;
    }

    /** The inventory's reservations and the provider's charges for {@code orderId}. */
    Map<String, Snapshot> of(UUID orderId) {
        CompletableFuture<Snapshot> inventory = ask("inventory", orderId, views::reservations);
        CompletableFuture<Snapshot> payment = ask("payment", orderId, views::charges);
        Map<String, Snapshot> result = new LinkedHashMap<>();
        result.put("inventory", inventory.join());
        result.put("payment", payment.join());
        return result;
    }

    private CompletableFuture<Snapshot> ask(String participant, UUID orderId,
            BiFunction<UUID, Duration, JsonNode> call) {
        String key = participant + ":" + orderId;
        CompletableFuture<JsonNode> answer;
        try {
            answer = CompletableFuture.supplyAsync(() -> call.apply(orderId, timeout), calls);
        } catch (RejectedExecutionException e) {
            answer = CompletableFuture.failedFuture(new IllegalStateException("busy: too many views asked at once"));
        }
        // The port has the timeout too; this bounds a port that ignores it.
        return answer.orTimeout(timeout.toMillis() + 250, TimeUnit.MILLISECONDS)
                .handle((value, failure) -> {
                    if (failure == null) {
                        Snapshot fresh = new Snapshot(false, clock.instant(), null, value);
                        remember(key, fresh);
                        return fresh;
                    }
                    Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
                    String why = cause.getMessage() != null ? cause.getMessage() : cause.getClass().getSimpleName();
                    log.info("order {}: {} did not answer for the operator's view ({}); shown stale", orderId,
                            participant, why);
                    Snapshot last = remembered(key);
                    return new Snapshot(true, last == null ? null : last.fetchedAt(), why,
                            last == null ? null : last.value());
                });
    }

    private synchronized void remember(String key, Snapshot snapshot) {
        lastGood.put(key, snapshot);
    }

    private synchronized Snapshot remembered(String key) {
        return lastGood.get(key);
    }

    @Override
    public void close() {
        calls.shutdownNow();
    }
}
