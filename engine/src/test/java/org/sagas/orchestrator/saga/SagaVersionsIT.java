package org.sagas.orchestrator.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.jdbi.v3.core.Handle;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.saga.TripSaga.Trip;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Two versions of the trip saga on one database (docs/design.md, "A second version of a saga"): an
 * engine of the old build knows only version 1, one of the new build knows both and starts on 2.
 */
@RealInfrastructure
class SagaVersionsIT {
    private static final Duration HEARTBEAT = Duration.ofMillis(200);
    private static Jdbi jdbi;
    private final SagaTimings timings = new SagaTimings(Duration.ofMillis(300), Duration.ofMillis(100),
            Duration.ofMinutes(15));
    private final TripSaga oldV1 = new TripSaga();
    private final TripSaga newV1 = new TripSaga();
    private final TripSaga newV2 = TripSaga.v2();
    private final SagaEngine oldBuild = new SagaEngine(jdbi, Clock.systemUTC(), timings, () -> {}).register(oldV1);
    private final SagaEngine newBuild = new SagaEngine(jdbi, Clock.systemUTC(), timings, () -> {}).register(newV1)
            .register(newV2).startOn("trip", 2);

    @BeforeAll
    static void schema(TestInfra infra) {
        Migrations.apply(infra.dataSource());
        jdbi = Jdbi.create(infra.dataSource(10));
    }

    @BeforeEach
    void noProcessRegistered() {
        jdbi.useHandle(h -> h.execute("DELETE FROM saga_definition_host"));
    }

    @Test
    void shouldFinishOnVersionOneWhatStartedOnItAfterVersionTwoBecameTheDefault() {
        // Given two trips started by the old build, waiting for their flights
        UUID booked = startWaiting(oldBuild);
        UUID full = startWaiting(oldBuild);

        // When the new build, starting on version 2, takes over and starts two trips of its own
        UUID bookedOnV2 = startWaiting(newBuild);
        UUID fullOnV2 = startWaiting(newBuild);
        newBuild.handleReplies(List.of(new SagaEngine.Reply(reply("FlightBooked"), booked),
                new SagaEngine.Reply(reply("FlightFull"), full),
                new SagaEngine.Reply(reply("FlightBooked"), bookedOnV2),
                new SagaEngine.Reply(reply("FlightFull"), fullOnV2)));

        // Then the old trips ended on version 1: no insurance, the hotel cancelled without a fee
        assertThat(newBuild.find(booked).orElseThrow().definition()).isEqualTo(new SagaVersion("trip", 1));
        assertThat(steps(booked)).containsExactly("BOOK_HOTEL", "BOOK_FLIGHT", "BOOK_CAR", "BOOK_CAR");
        assertThat(newBuild.find(booked).orElseThrow().status()).isEqualTo(SagaStatus.COMPLETED);
        assertThat(newBuild.find(full).orElseThrow().status()).isEqualTo(SagaStatus.COMPENSATED);
        assertThat(newV1.hotelCancels).contains(full);
        assertThat(newV2.hotelFeesPaid).doesNotContain(full);
        // And the new ones ran version 2: insured, and the fee paid on cancelling
        assertThat(newBuild.find(bookedOnV2).orElseThrow().definition()).isEqualTo(new SagaVersion("trip", 2));
        assertThat(newBuild.find(bookedOnV2).orElseThrow().status()).isEqualTo(SagaStatus.COMPLETED);
        assertThat(newV2.insured).containsExactly(bookedOnV2);
        assertThat(newBuild.find(fullOnV2).orElseThrow().status()).isEqualTo(SagaStatus.COMPENSATED);
        assertThat(newV2.hotelFeesPaid).containsExactly(fullOnV2);
    }

    @Test
    void shouldClaimNoInstanceOfAVersionItLacks() {
        // Given version 2 trips that are due in every way: a step to run, a reply late, parked past its time
        UUID due = newBuild.start(newV2, UUID.randomUUID(), TripSaga.trip(), h -> {}).id();
        UUID late = startWaiting(newBuild);
        UUID expired = newBuild.start(newV2, UUID.randomUUID(), TripSaga.trip(), h -> {}).id();
        jdbi.useHandle(h -> {
            h.execute("UPDATE saga_instance SET next_attempt_at = now() - interval '1 s' WHERE saga_id = ?", due);
            h.execute("UPDATE saga_instance SET step_deadline_at = now() - interval '1 s' WHERE saga_id = ?", late);
            h.execute("UPDATE saga_instance SET status = 'PARKED', parked_on = 'hotels', next_attempt_at = now()"
                    + " - interval '1 s', expires_at = now() - interval '1 s' WHERE saga_id = ?", expired);
        });
        List<Integer> before = rowVersions(due, late, expired);

        // ... and a process of the new build running beside it (its heartbeat recorded), as in a rolling deploy
        new SagaFleet(jdbi, newBuild, HEARTBEAT).heartbeat();

        // When the old build looks for work, is handed the late trip's reply, and is asked to resend
        oldBuild.runDue(100, Set.of(), null, 1_000);
        oldBuild.runDue(100, Set.of(), "hotels", 1_000);
        oldBuild.timeOutSteps(100);
        oldBuild.expireParked(100);
        oldBuild.makeDue("hotels");
        SagaEngine.ReplyOutcome outcome;
        // (the late trip's row held by another transaction: a lock attempt would wait for it)
        try (Handle holder = jdbi.open()) {
            holder.begin();
            holder.execute("SELECT 1 FROM saga_instance WHERE saga_id = ? FOR UPDATE", late);
            outcome = assertTimeoutPreemptively(Duration.ofSeconds(5),
                    () -> oldBuild.handleReplies(List.of(new SagaEngine.Reply(reply("FlightBooked"), late))).get(0));
            assertThat(assertTimeoutPreemptively(Duration.ofSeconds(5), () -> oldBuild.resendCommand(late, "test")))
                    .isEmpty();
            holder.rollback();
        }

        // Then it took none of them: not one row moved, the reply is left for a build that has version 2
        assertThat(outcome).isEqualTo(SagaEngine.ReplyOutcome.UNKNOWN_VERSION);
        assertThat(rowVersions(due, late, expired)).isEqualTo(before);
        assertThat(oldBuild.operate(due, OperatorCommand.CANCEL, "test", "cancelled", 1_000, (h, s) -> {}))
                .isInstanceOf(OperatorOutcome.NotFound.class);
        // And the new build takes the reply
        assertThat(newBuild.handleReplies(List.of(new SagaEngine.Reply(reply("FlightBooked"), late))))
                .containsExactly(SagaEngine.ReplyOutcome.APPLIED);

        // When no live process has version 2 any more, a reply for one of its sagas is not left waiting
        // for nobody: it fails, naming the version, as a poison reply does (retried, then dead-lettered)
        jdbi.useHandle(h -> h.execute("DELETE FROM saga_definition_host"));
        assertThatThrownBy(() -> oldBuild.handleReplies(List.of(new SagaEngine.Reply(reply("FlightBooked"), due))))
                .isInstanceOf(SagaException.class).hasMessageContaining("trip v2");
    }

    @Test
    void shouldRefuseToStartWhileNoLiveProcessKnowsAVersionOfLiveInstancesAndStartWhenOneDoes() {
        // Given a live version 2 trip, and only the old build about to start
        UUID waiting = startWaiting(newBuild);
        SagaFleet oldFleet = new SagaFleet(jdbi, oldBuild, HEARTBEAT);

        // Then it refuses, naming the type, version and count
        assertThatThrownBy(oldFleet::checkLiveVersions).isInstanceOf(UnknownLiveVersions.class)
                .hasMessageContaining("live saga(s) of trip v2")
                .satisfies(e -> assertThat(((UnknownLiveVersions) e).unknown())
                        .containsKey(new SagaVersion("trip", 2)));

        // When a process of the new build is running (its heartbeat recorded)
        SagaFleet newFleet = new SagaFleet(jdbi, newBuild, HEARTBEAT);
        newFleet.heartbeat();

        // Then the old build may start, and so may the new one at any time
        assertThatCode(oldFleet::checkLiveVersions).doesNotThrowAnyException();
        assertThatCode(new SagaFleet(jdbi, newBuild, HEARTBEAT)::checkLiveVersions).doesNotThrowAnyException();

        // When the new build's process has been silent for more than three heartbeats
        jdbi.useHandle(h -> h.execute("UPDATE saga_definition_host SET heartbeat_at = now() - interval '1 s'"
                + " WHERE process_id = ?", newFleet.processId()));

        // Then it no longer counts
        assertThatThrownBy(oldFleet::checkLiveVersions).isInstanceOf(UnknownLiveVersions.class);
        assertThat(newBuild.find(waiting).orElseThrow().status()).isEqualTo(SagaStatus.AWAITING_REPLY);
    }

    /** A trip started on {@code engine}'s default version, its hotel booked, waiting for its flight. */
    private static UUID startWaiting(SagaEngine engine) {
        SagaDefinition<Trip> def = engine.starting("trip", Trip.class);
        SagaInstance<Trip> waiting = engine.advance(engine.start(def, UUID.randomUUID(), TripSaga.trip(), h -> {}),
                System.currentTimeMillis() + 1_000);
        assertThat(waiting.status()).isEqualTo(SagaStatus.AWAITING_REPLY);
        return waiting.id();
    }

    private static IncomingMessage reply(String type) {
        return new IncomingMessage(UUID.randomUUID(), type, "k", null, JsonNodeFactory.instance.objectNode());
    }

    private static List<String> steps(UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT step FROM saga_history WHERE saga_id = :id ORDER BY id")
                .bind("id", id).mapTo(String.class).list());
    }

    private static List<Integer> rowVersions(UUID... ids) {
        return jdbi.withHandle(h -> {
            List<Integer> versions = new java.util.ArrayList<>();
            for (UUID id : ids) {
                versions.add(h.createQuery("SELECT version FROM saga_instance WHERE saga_id = :id").bind("id", id)
                        .mapTo(Integer.class).one());
            }
            return versions;
        });
    }
}
