package org.sagas.orchestrator.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Clock;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;

/** A participant that does not answer in time shows what it said last, marked stale, without holding up the view. */
class ParticipantSnapshotsTest {
    private final AtomicBoolean inventoryUp = new AtomicBoolean(true);
    private final CountDownLatch never = new CountDownLatch(1);

    private final ParticipantViews views = new ParticipantViews() {
        @Override
        public JsonNode reservations(UUID orderId, Duration timeout) {
            if (!inventoryUp.get()) {
                throw new IllegalStateException("inventory GET /reservations: connection refused");
            }
            return Json.mapper().createArrayNode().add(Json.mapper().createObjectNode().put("status", "RESERVED"));
        }

        @Override
        public JsonNode charges(UUID orderId, Duration timeout) {
            try {
                never.await(10, TimeUnit.SECONDS); // a provider that ignores its timeout
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Json.mapper().createArrayNode();
        }
    };

    @Test
    void shouldShowTheLastAnswerMarkedStaleWhenAParticipantIsDownAndNothingForOneThatNeverAnswered() {
        try (ParticipantSnapshots snapshots = new ParticipantSnapshots(views, Duration.ofSeconds(1),
                Clock.systemUTC())) {
            UUID order = UUID.randomUUID();
            var first = snapshots.of(order);
            inventoryUp.set(false);

            long start = System.nanoTime();
            var second = snapshots.of(order);
            long tookMillis = (System.nanoTime() - start) / 1_000_000;

            assertThat(first.get("inventory").stale()).isFalse();
            assertThat(second.get("inventory").stale()).isTrue();
            assertThat(second.get("inventory").error()).contains("connection refused");
            assertThat(second.get("inventory").value()).isEqualTo(first.get("inventory").value());
            assertThat(second.get("inventory").fetchedAt()).isEqualTo(first.get("inventory").fetchedAt());
            assertThat(second.get("payment").stale()).isTrue();
            assertThat(second.get("payment").value()).isNull();
            assertThat(tookMillis).as("bounded by the timeout, not by the slow provider").isLessThan(5_000);
        } finally {
            never.countDown();
        }
    }
}
