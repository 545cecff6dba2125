package org.sagas.orchestrator.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.saga.TripSaga.Trip;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

@RealInfrastructure
class SagaEngineIT {
    private static Jdbi jdbi;
    private static final AtomicInteger wakeUps = new AtomicInteger();
    private final TripSaga trips = new TripSaga();
    private final SagaTimings timings = new SagaTimings(Duration.ofMillis(300), Duration.ofMillis(100),
            Duration.ofMinutes(15));
    private final SagaEngine engine = new SagaEngine(jdbi, Clock.systemUTC(), timings, wakeUps::incrementAndGet)
            .register(trips);

    @BeforeAll
    static void schema(TestInfra infra) {
        Migrations.apply(infra.dataSource());
        jdbi = Jdbi.create(infra.dataSource(20));
    }

    @Test
    void shouldWriteStateHistoryAndOutboxTogetherAndCompleteOnReply() {
        // Given a trip whose hotel is booked synchronously
        UUID id = UUID.randomUUID();
        SagaInstance<Trip> started = engine.start(trips, id, TripSaga.trip(), h -> {});
        SagaInstance<Trip> waiting = engine.advance(trips, started, System.currentTimeMillis() + 1000);

        // Then it waits for the flight, with the command in the outbox and the history written
        assertThat(waiting.status()).isEqualTo(SagaStatus.AWAITING_REPLY);
        assertThat(outboxTypes(id)).containsExactly("BookFlight");
        assertThat(history(id)).containsExactly("TRIP_RUNNING", "TRIP_AWAITING_REPLY");

        // When the reply arrives twice
        IncomingMessage reply = reply("FlightBooked");
        assertThat(engine.handleReply("trips", reply, id)).isEqualTo(SagaEngine.ReplyOutcome.APPLIED);
        assertThat(engine.handleReply("trips", reply, id)).isEqualTo(SagaEngine.ReplyOutcome.DUPLICATE);

        // Then the car step ran inline and the saga completed once
        SagaInstance<?> done = engine.find(id).orElseThrow();
        assertThat(done.status()).isEqualTo(SagaStatus.COMPLETED);
        assertThat(outboxTypes(id)).containsExactly("BookFlight", "TripCOMPLETED");
        assertThat(history(id)).containsExactly("TRIP_RUNNING", "TRIP_AWAITING_REPLY", "TRIP_RUNNING", "TRIP_COMPLETED");
        assertThat(wakeUps.get()).isPositive();
    }

    @Test
    void shouldCompensateAndEndWhenTheFlightIsFull() {
        UUID id = UUID.randomUUID();
        engine.advance(trips, engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);

        engine.handleReply("trips", reply("FlightFull"), id);

        assertThat(engine.find(id).orElseThrow().status()).isEqualTo(SagaStatus.COMPENSATED);
        assertThat(history(id)).containsSubsequence("TRIP_COMPENSATING", "TRIP_COMPENSATED");
    }

    @Test
    void shouldApplyABatchOfRepliesInOrderInOneTransaction() {
        // Given two trips waiting for their flights
        UUID booked = UUID.randomUUID();
        UUID full = UUID.randomUUID();
        for (UUID id : List.of(booked, full)) {
            engine.advance(trips, engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);
        }
        IncomingMessage flightBooked = reply("FlightBooked");

        // When one batch brings: a booking, the same booking again, a late second answer for the same
        // trip, a refusal for the other trip, and a reply for a trip that does not exist
        List<SagaEngine.ReplyOutcome> outcomes = engine.handleReplies("trips", List.of(
                new SagaEngine.Reply(flightBooked, booked),
                new SagaEngine.Reply(flightBooked, booked),
                new SagaEngine.Reply(reply("FlightFull"), booked),
                new SagaEngine.Reply(reply("FlightFull"), full),
                new SagaEngine.Reply(reply("FlightBooked"), UUID.randomUUID())));

        // Then each reply has its own outcome, the second answer met the state the first one left
        assertThat(outcomes).containsExactly(SagaEngine.ReplyOutcome.APPLIED, SagaEngine.ReplyOutcome.DUPLICATE,
                SagaEngine.ReplyOutcome.NOT_AWAITED, SagaEngine.ReplyOutcome.APPLIED,
                SagaEngine.ReplyOutcome.UNKNOWN_SAGA);
        assertThat(engine.find(booked).orElseThrow().status()).isEqualTo(SagaStatus.COMPLETED);
        assertThat(engine.find(full).orElseThrow().status()).isEqualTo(SagaStatus.COMPENSATED);
        assertThat(history(booked)).containsExactly("TRIP_RUNNING", "TRIP_AWAITING_REPLY", "TRIP_RUNNING",
                "TRIP_COMPLETED");

        // And a later redelivery changes nothing
        List<SagaEngine.ReplyOutcome> again = engine.handleReplies("trips", List.of(
                new SagaEngine.Reply(flightBooked, booked)));
        assertThat(again).containsExactly(SagaEngine.ReplyOutcome.DUPLICATE);
        assertThat(history(booked)).hasSize(4);
    }

    @Test
    void shouldRejectAStaleWriteWithTheOptimisticLock() {
        UUID id = UUID.randomUUID();
        SagaInstance<Trip> started = engine.start(trips, id, TripSaga.trip(), h -> {});
        engine.advance(trips, started, System.currentTimeMillis() + 1000);

        // Running the same (now stale) instance again must not overwrite the newer state
        assertThatThrownBy(() -> engine.advance(trips, started, System.currentTimeMillis() + 1000))
                .isInstanceOf(ConcurrentSagaUpdate.class);
        assertThat(outboxTypes(id)).containsExactly("BookFlight");
    }

    @Test
    void shouldRollBackEverythingWhenTheCreatingTransactionFails() {
        UUID id = UUID.randomUUID();

        assertThatThrownBy(() -> engine.start(trips, id, TripSaga.trip(), h -> {
            throw new IllegalStateException("boom");
        })).hasMessage("boom");

        assertThat(engine.find(id)).isEmpty();
        assertThat(history(id)).isEmpty();
    }

    @Test
    void shouldResumeParkedSagasOnceEachAcrossConcurrentRunners() throws Exception {
        // Given 40 trips parked because hotels are down
        trips.hotelAnswer.set(StepResult.unavailable("hotels", "down"));
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            UUID id = UUID.randomUUID();
            engine.advance(trips, engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);
            ids.add(id);
        }
        assertThat(ids).allSatisfy(id -> assertThat(engine.find(id).orElseThrow().status()).isEqualTo(SagaStatus.PARKED));

        // When hotels come back and four runners claim due work at once
        trips.hotelAnswer.set(null);
        trips.hotelRuns.clear();
        SagaEngine[] runners = new SagaEngine[4];
        for (int r = 0; r < runners.length; r++) {
            runners[r] = new SagaEngine(jdbi, Clock.systemUTC(), timings, () -> {}).register(trips);
        }
        Thread.sleep(150); // past the park retry delay (100 ms) so the parked sagas are due
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> runs = new ArrayList<>();
        for (SagaEngine runner : runners) {
            runs.add(pool.submit(() -> {
                go.await();
                int n = 0;
                for (int k = 0; k < 20; k++) {
                    n += runner.runDue(5, Set.of(), null, 1000);
                }
                return n;
            }));
        }
        go.countDown();
        int claimed = 0;
        for (Future<Integer> f : runs) {
            claimed += f.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();

        // Then each parked saga was resumed exactly once and now waits for its flight
        assertThat(claimed).isEqualTo(40);
        assertThat(trips.hotelRuns).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(ids).allSatisfy(id -> assertThat(engine.find(id).orElseThrow().status())
                .isEqualTo(SagaStatus.AWAITING_REPLY));
    }

    private static IncomingMessage reply(String type) {
        return new IncomingMessage(UUID.randomUUID(), type, "k", null, JsonNodeFactory.instance.objectNode());
    }

    private static List<String> outboxTypes(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT message_type FROM outbox WHERE correlation_id = :id ORDER BY id")
                .bind("id", id.toString()).mapTo(String.class).list());
    }

    private static List<String> history(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT label FROM saga_history WHERE saga_id = :id ORDER BY id")
                .bind("id", id).mapTo(String.class).list());
    }
}
