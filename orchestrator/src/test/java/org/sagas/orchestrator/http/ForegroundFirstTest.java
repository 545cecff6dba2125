package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.http.ApiServer;

class ForegroundFirstTest {
    private static final ApiServer.Admission ADMIT = request -> new ApiServer.Admission.Admitted(() -> {});
    private static final ApiServer.Admission REFUSE = request -> new ApiServer.Admission.Refused(503, "overloaded",
            "Too many requests in flight", "refused", 1);
    private static final ApiServer.Admission.Request REQUEST = new ApiServer.Admission.Request("customer:c",
            java.util.Set.of("c"), org.sagas.orchestrator.resilience.Priority.NORMAL, Long.MAX_VALUE, 0,
            java.util.OptionalInt.empty());

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    @Test
    void shouldNotHoldBackgroundWorkWhileFewerSubmissionsThanTheThresholdAreInFlight() {
        // Given a threshold of 2 and one submission in flight
        ForegroundFirst foreground = new ForegroundFirst(2, Duration.ofSeconds(30), () -> true, registry);
        foreground.around(ADMIT).admit(null, REQUEST);

        // When background work asks, it goes on at once
        assertThat(CompletableFuture.runAsync(() -> foreground.yieldToClients(System.currentTimeMillis()))).succeedsWithin(Duration.ofSeconds(5));
        assertThat(registry.counter("saga.background.yields").count()).isZero();
    }

    @Test
    void shouldHoldBackgroundWorkUntilTheSubmissionsThinOut() {
        // Given a threshold of 2 and two submissions in flight
        ForegroundFirst foreground = new ForegroundFirst(2, Duration.ofSeconds(30), () -> true, registry);
        ApiServer.Admission.Ticket first = foreground.around(ADMIT).admit(null, REQUEST);
        foreground.around(ADMIT).admit(null, REQUEST);

        // When background work asks, it waits
        CompletableFuture<Void> background = CompletableFuture.runAsync(() -> foreground.yieldToClients(System.currentTimeMillis()));
        assertThat(background).failsWithin(Duration.ofMillis(200))
                .withThrowableOfType(java.util.concurrent.TimeoutException.class);

        // ... and goes on as soon as one submission ends, long before its longest wait
        first.close();
        assertThat(background).succeedsWithin(Duration.ofSeconds(5));
        assertThat(foreground.inFlight()).isEqualTo(1);
        assertThat(registry.counter("saga.background.yields").count()).isEqualTo(1);
    }

    @Test
    void shouldNeverHoldBackgroundWorkLongerThanItsLongestWait() {
        // Given clients that stay busy
        ForegroundFirst foreground = new ForegroundFirst(1, Duration.ofMillis(100), () -> true, registry);
        foreground.around(ADMIT).admit(null, REQUEST);

        // When background work asks, it goes on after its longest wait all the same
        long start = System.nanoTime();
        assertThat(CompletableFuture.runAsync(() -> foreground.yieldToClients(System.currentTimeMillis()))).succeedsWithin(Duration.ofSeconds(5));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isGreaterThanOrEqualTo(100);
    }

    @Test
    void shouldHoldARecordBackOnlyUntilItIsAsOldAsTheLongestWait() {
        // Given clients that stay busy, and a longest wait of 1 s
        ForegroundFirst foreground = new ForegroundFirst(1, Duration.ofSeconds(1), () -> true, registry);
        foreground.around(ADMIT).admit(null, REQUEST);

        // When a batch whose oldest record was written 2 s ago asks, it goes on at once, uncounted
        assertThat(CompletableFuture.runAsync(() -> foreground.yieldToClients(System.currentTimeMillis() - 2000)))
                .succeedsWithin(Duration.ofMillis(500));
        assertThat(registry.counter("saga.background.yields").count()).isZero();

        // When its oldest record was written 900 ms ago, it waits the 100 ms left, not the whole second
        long start = System.nanoTime();
        assertThat(CompletableFuture.runAsync(() -> foreground.yieldToClients(System.currentTimeMillis() - 900)))
                .succeedsWithin(Duration.ofSeconds(5));
        assertThat(TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start)).isBetween(50L, 800L);
        assertThat(registry.counter("saga.background.yields").count()).isEqualTo(1);
    }

    @Test
    void shouldNotHoldBackgroundWorkWhenTheCoresHaveRoomHoweverManySubmissionsAreInFlight() {
        // Given many submissions in flight on a machine with cores to spare
        ForegroundFirst foreground = new ForegroundFirst(1, Duration.ofSeconds(30), () -> false, registry);
        for (int i = 0; i < 10; i++) {
            foreground.around(ADMIT).admit(null, REQUEST);
        }

        // When background work asks, it goes on at once
        assertThat(CompletableFuture.runAsync(() -> foreground.yieldToClients(System.currentTimeMillis()))).succeedsWithin(Duration.ofSeconds(5));
        assertThat(registry.counter("saga.background.yields").count()).isZero();
    }

    @Test
    void shouldNeverFindTheCoresBusierThanFull() {
        assertThat(ForegroundFirst.cpuAbove(1.01).getAsBoolean()).isFalse();
    }

    @Test
    void shouldNotCountRefusedSubmissions() {
        ForegroundFirst foreground = new ForegroundFirst(1, Duration.ofSeconds(30), () -> true, registry);

        assertThat(foreground.around(REFUSE).decide(REQUEST)).isInstanceOf(ApiServer.Admission.Refused.class);

        assertThat(foreground.inFlight()).isZero();
    }
}
