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
        SagaInstance<Trip> waiting = engine.advance(started, System.currentTimeMillis() + 1000);

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
    void shouldRaiseAnIncidentOnACompensationThatWaitsTooLongAndKeepRetryingIt() {
        // Given a trip whose compensation has waited on the hotels for an hour
        UUID id = UUID.randomUUID();
        engine.advance(engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);
        jdbi.useHandle(h -> h.execute("UPDATE saga_instance SET status = 'COMPENSATING', parked_on = 'hotels',"
                + " park_count = 700, next_attempt_at = now(), label_at = now() - interval '1 hour' WHERE saga_id = ?", id));

        // When the check runs (twice)
        int first = engine.flagStalledCompensations(Duration.ofMinutes(15), 500);
        int second = engine.flagStalledCompensations(Duration.ofMinutes(15), 500);

        // Then it is an incident once, with the participant named, and still due to be retried
        SagaInstance<?> saga = engine.find(id).orElseThrow();
        assertThat(first).isEqualTo(1);
        assertThat(second).isZero();
        assertThat(saga.incident().cause()).isEqualTo(IncidentCause.COMPENSATION_STALLED);
        assertThat(saga.incident().detail()).contains("hotels");
        assertThat(saga.status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(saga.parkedOn()).isEqualTo("hotels");
    }

    @Test
    void shouldCompensateAndEndWhenTheFlightIsFull() {
        UUID id = UUID.randomUUID();
        engine.advance(engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);

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
            engine.advance(engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);
        }
        IncomingMessage flightBooked = reply("FlightBooked");

        // When one batch brings: a booking, the same booking again, a late second answer for the same
        // trip, a refusal for the other trip, and a reply for a trip that does not exist
        List<SagaEngine.ReplyOutcome> outcomes = engine.handleReplies(List.of(
                new SagaEngine.Reply(flightBooked, booked),
                new SagaEngine.Reply(flightBooked, booked),
                new SagaEngine.Reply(reply("FlightFull"), booked),
                new SagaEngine.Reply(reply("FlightFull"), full),
                new SagaEngine.Reply(reply("FlightBooked"), UUID.randomUUID())));

        // Then each reply has its own outcome: the repeated and the second answer met the state the
        // first one left (no inbox: the saga's own state is what turns them away)
        assertThat(outcomes).containsExactly(SagaEngine.ReplyOutcome.APPLIED, SagaEngine.ReplyOutcome.NOT_AWAITED,
                SagaEngine.ReplyOutcome.NOT_AWAITED, SagaEngine.ReplyOutcome.APPLIED,
                SagaEngine.ReplyOutcome.UNKNOWN_SAGA);
        assertThat(engine.find(booked).orElseThrow().status()).isEqualTo(SagaStatus.COMPLETED);
        assertThat(engine.find(full).orElseThrow().status()).isEqualTo(SagaStatus.COMPENSATED);
        assertThat(history(booked)).containsExactly("TRIP_RUNNING", "TRIP_AWAITING_REPLY", "TRIP_RUNNING",
                "TRIP_COMPLETED");

        // And a later redelivery changes nothing
        List<SagaEngine.ReplyOutcome> again = engine.handleReplies(List.of(
                new SagaEngine.Reply(flightBooked, booked)));
        assertThat(again).containsExactly(SagaEngine.ReplyOutcome.NOT_AWAITED);
        assertThat(history(booked)).hasSize(4);
        long inboxRows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM inbox WHERE message_id = :m")
                .bind("m", flightBooked.messageId()).mapTo(Long.class).one());
        assertThat(inboxRows).isZero();
    }

    @Test
    void shouldRejectAStaleWriteWithTheOptimisticLock() {
        UUID id = UUID.randomUUID();
        SagaInstance<Trip> started = engine.start(trips, id, TripSaga.trip(), h -> {});
        engine.advance(started, System.currentTimeMillis() + 1000);

        // Running the same (now stale) instance again must not overwrite the newer state
        assertThatThrownBy(() -> engine.advance(started, System.currentTimeMillis() + 1000))
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
        // Given 40 trips parked because hotels are down, and nothing else of earlier tests due
        quietEveryOtherSaga();
        trips.hotelAnswer.set(StepResult.unavailable("hotels", Reason.of("hotels_down", "down")));
        List<UUID> ids = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            UUID id = UUID.randomUUID();
            engine.advance(engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);
            ids.add(id);
        }
        assertThat(ids).allSatisfy(id -> assertThat(engine.find(id).orElseThrow().status()).isEqualTo(SagaStatus.PARKED));

        // When hotels come back and four runners claim due work at once
        trips.hotelAnswer.set(null);
        trips.hotelRuns.clear();
        SagaEngine[] runners = new SagaEngine[4];
        for (int r = 0; r < runners.length; r++) {
            // A lease far longer than a run, even on a loaded machine: a second claim would be a bug here,
            // not a runner that outlived its lease.
            runners[r] = new SagaEngine(jdbi, Clock.systemUTC(), new SagaTimings(Duration.ofSeconds(30),
                    Duration.ofMillis(100), Duration.ofMinutes(15)), () -> {}).register(trips);
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

    @Test
    void shouldRetryAThrowingStepABoundedNumberOfTimesThenRaiseAStepFailedIncident() {
        // Given a hotel step that always throws, and an engine that tries a step again twice
        TripSaga broken = new TripSaga();
        broken.hotelThrows.set(new IllegalStateException("bug in the hotel adapter"));
        SagaEngine twice = new SagaEngine(jdbi, Clock.systemUTC(), new SagaTimings(Duration.ofMillis(300),
                Duration.ofMillis(50), Duration.ofMinutes(15), 2), () -> {}).register(broken);
        List<IncidentCause> raised = new java.util.concurrent.CopyOnWriteArrayList<>();
        twice.onIncident((id, cause) -> raised.add(cause));
        UUID id = UUID.randomUUID();

        // When it runs, and then whenever it is due
        SagaInstance<Trip> first = twice.advance(twice.start(broken, id, TripSaga.trip(), h -> {}),
                System.currentTimeMillis() + 1000);
        assertThat(first.status()).as("the exception did not escape").isEqualTo(SagaStatus.RUNNING);
        assertThat(first.stepRetries()).isEqualTo(1);
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(10)).until(() -> {
            twice.runDue(10, Set.of(), null, 1000);
            return twice.find(id).orElseThrow().incident() != null;
        });

        // Then it ran three times in all, and now waits for an operator, visibly and only once
        SagaInstance<?> stuck = twice.find(id).orElseThrow();
        assertThat(stuck.incident().cause()).isEqualTo(IncidentCause.STEP_FAILED);
        assertThat(stuck.incident().detail()).contains("bug in the hotel adapter");
        assertThat(stuck.nextAttemptAt()).isNull();
        assertThat(broken.hotelRuns).hasSize(3);
        assertThat(raised).containsExactly(IncidentCause.STEP_FAILED);
        assertThat(twice.runDue(10, Set.of(), null, 1000)).as("nothing runs it again").isZero();
        assertThat(reasonCodes(id)).containsExactly("started", "step_failed", "step_failed", "step_failed");
        assertThat(incidentColumns(id)).isEqualTo("STEP_FAILED");
    }

    @Test
    void shouldMakeARefusedCompensationAnIncidentAndNotRunItAgain() {
        // Given a trip whose flight is full and whose hotel refuses the cancellation for good
        trips.hotelCancelAnswer.set(StepResult.refused(Reason.of("hotel_refused", "400: unknown booking")));
        UUID id = UUID.randomUUID();
        engine.advance(engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);

        // When the flight is refused and the saga undoes the hotel
        engine.handleReply("trips", reply("FlightFull"), id);

        // Then it stays COMPENSATING with a typed incident, and no runner picks it up
        SagaInstance<?> stuck = engine.find(id).orElseThrow();
        assertThat(stuck.status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(stuck.incident().cause()).isEqualTo(IncidentCause.PARTICIPANT_REFUSED);
        assertThat(incidentColumns(id)).isEqualTo("PARTICIPANT_REFUSED");
        assertThat(engine.runDue(50, Set.of(), null, 1000)).isZero();
        assertThat(trips.hotelCancels).containsOnlyOnce(id);
        assertThat(reasonCodes(id)).endsWith("flight_full", "participant_refused");
    }

    @Test
    void shouldRaiseAnIncidentFromOutsideOnceAndClearItWhenTheSagaMovesOn() {
        UUID id = UUID.randomUUID();
        engine.advance(engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);

        assertThat(engine.raiseIncident(id, IncidentCause.POISON_REPLY, "reply kept failing")).isTrue();
        assertThat(engine.raiseIncident(id, IncidentCause.POISON_REPLY, "reply kept failing")).isFalse();
        assertThat(engine.raiseIncident(UUID.randomUUID(), IncidentCause.POISON_REPLY, "x")).isFalse();
        assertThat(incidentColumns(id)).isEqualTo("POISON_REPLY");
        assertThat(reasonCodes(id)).containsOnlyOnce("poison_reply");

        engine.handleReply("trips", reply("FlightBooked"), id);

        assertThat(engine.find(id).orElseThrow().status()).isEqualTo(SagaStatus.COMPLETED);
        assertThat(incidentColumns(id)).isNull();
    }

    @Test
    void shouldResendTheCommandThroughTheOutbox() {
        UUID id = UUID.randomUUID();
        engine.advance(engine.start(trips, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);

        assertThat(engine.resendCommand(id, "lost")).hasValueSatisfying(s -> assertThat(s.stepRetries()).isEqualTo(1));

        assertThat(outboxTypes(id)).containsExactly("BookFlight", "BookFlight");
        engine.handleReply("trips", reply("FlightBooked"), id);
        assertThat(engine.resendCommand(id, "lost")).as("not waiting any more").isEmpty();
    }

    @Test
    void shouldLetOneOfExpiryAndAnInFlightResumeWinAndUndoTheLosersEffectByKey() throws Exception {
        // Given a trip parked on hotels, with a time to live that runs out while it is being resumed,
        // and nothing else of earlier tests due (the resumer takes the oldest first)
        quietEveryOtherSaga();
        TripSaga racing = new TripSaga();
        // A time to live long enough for the resume to claim the saga first on a loaded machine.
        SagaEngine brief = new SagaEngine(jdbi, Clock.systemUTC(), new SagaTimings(Duration.ofSeconds(10),
                Duration.ofMillis(10), Duration.ofMillis(1500)), () -> {}).register(racing);
        racing.hotelAnswer.set(StepResult.unavailable("hotels", Reason.of("hotels_down", "down")));
        UUID id = UUID.randomUUID();
        brief.advance(brief.start(racing, id, TripSaga.trip(), h -> {}), System.currentTimeMillis() + 1000);
        assertThat(brief.find(id).orElseThrow().status()).isEqualTo(SagaStatus.PARKED);
        racing.hotelAnswer.set(null);
        CountDownLatch inside = new CountDownLatch(1);
        CountDownLatch letGo = new CountDownLatch(1);
        racing.insideHotel.set(() -> {
            inside.countDown();
            try {
                letGo.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });

        // When a resumer claims it and books the hotel, and expiry runs while the booking is in flight
        brief.makeDue("hotels"); // due now, not after the park retry: the resume below must find it
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Integer> resume = pool.submit(() -> brief.runDue(1, Set.of(), "hotels", 5000));
        assertThat(inside.await(10, TimeUnit.SECONDS)).isTrue();
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> brief.expireParked(10) == 1);
        letGo.countDown();
        assertThat(resume.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        pool.shutdown();

        // Then expiry won: the saga ended without the booking going on, and the hotel booking the
        // resume made is undone by the saga's key (a late booking is the participant's no-op)
        SagaInstance<?> end = brief.find(id).orElseThrow();
        assertThat(end.status()).isEqualTo(SagaStatus.FAILED);
        assertThat(end.cause().code()).isEqualTo("expired");
        assertThat(racing.hotelCancels).containsExactly(id);
        assertThat(outboxTypes(id)).as("the loser published nothing").doesNotContain("BookFlight");
        assertThat(history(id)).doesNotContain("TRIP_AWAITING_REPLY");
        assertThat(reasonCodes(id)).containsSubsequence("hotels_down", "expired", "expired");
    }

    /** Sagas earlier tests of this class left running or parked are no longer due: tests claim only their own. */
    private static void quietEveryOtherSaga() {
        jdbi.useHandle(h -> h.execute("UPDATE saga_instance SET next_attempt_at = NULL, expires_at = NULL"
                + " WHERE status NOT IN ('COMPLETED', 'COMPENSATED', 'FAILED')"));
    }

    private static List<String> reasonCodes(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT reason_code FROM saga_history WHERE saga_id = :id ORDER BY id")
                .bind("id", id).mapTo(String.class).list());
    }

    private static String incidentColumns(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT incident_cause FROM saga_instance WHERE saga_id = :id"
                + " AND (incident_cause IS NULL) = (incident_at IS NULL)").bind("id", id).mapTo(String.class).one());
    }

    private static IncomingMessage reply(String type) {
        return new IncomingMessage(UUID.randomUUID(), type, "k", null, JsonNodeFactory.instance.objectNode());
    }

    private static List<String> outboxTypes(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT message_type FROM outbox_message WHERE correlation_id = :id"
                        + " ORDER BY id, part")
                .bind("id", id.toString()).mapTo(String.class).list());
    }

    private static List<String> history(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT label FROM saga_history WHERE saga_id = :id ORDER BY id")
                .bind("id", id).mapTo(String.class).list());
    }
}
