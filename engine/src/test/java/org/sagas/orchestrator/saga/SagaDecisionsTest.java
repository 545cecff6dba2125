package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.saga.TripSaga.Trip;

class SagaDecisionsTest {
    private final TripSaga saga = new TripSaga();
    private final SagaTimings timings = new SagaTimings(Duration.ofSeconds(30), Duration.ofSeconds(5),
            Duration.ofMinutes(15));
    private final Instant now = Instant.parse("2026-11-29T10:00:00Z");

    @Test
    void shouldStartAtTheFirstStepRunningWithALease() {
        Transition<Trip> t = SagaDecisions.beginTransition(saga, UUID.randomUUID(), TripSaga.trip(), now, timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.RUNNING);
        assertThat(t.after().step()).isEqualTo("BOOK_HOTEL");
        assertThat(t.after().version()).isZero();
        assertThat(t.after().nextAttemptAt()).isEqualTo(now.plusSeconds(30));
        assertThat(t.after().label()).isEqualTo("TRIP_RUNNING");
    }

    @Test
    void shouldPublishTheCommandWhenEnteringAnAsynchronousStep() {
        SagaInstance<Trip> started = begin();

        Transition<Trip> t = SagaDecisions.afterSyncStep(saga, started,
                StepResult.done(new Trip("ada", true, false)), now, timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.AWAITING_REPLY);
        assertThat(t.after().step()).isEqualTo("BOOK_FLIGHT");
        assertThat(t.after().stepDeadlineAt()).isEqualTo(now.plusSeconds(30));
        assertThat(t.after().nextAttemptAt()).isNull();
        assertThat(t.after().data().hotelBooked()).isTrue();
        assertThat(t.after().version()).isEqualTo(started.version() + 1);
        assertThat(t.messages()).singleElement().satisfies(m -> {
            assertThat(m.type()).isEqualTo("BookFlight");
            assertThat(m.key()).isEqualTo(started.id().toString());
        });
    }

    @Test
    void shouldParkWhenAParticipantIsUnavailableAndCountTheParkOnce() {
        SagaInstance<Trip> started = begin();

        Transition<Trip> first = SagaDecisions.afterSyncStep(saga, started,
                StepResult.unavailable("hotels", Reason.of("hotels_down", "breaker open")), now, timings);
        Transition<Trip> again = SagaDecisions.afterSyncStep(saga, first.after().claimed(now.plusSeconds(30)),
                StepResult.unavailable("hotels", Reason.of("hotels_down", "timeout")), now.plusSeconds(10), timings);

        assertThat(first.after().status()).isEqualTo(SagaStatus.PARKED);
        assertThat(first.after().parkedOn()).isEqualTo("hotels");
        assertThat(first.after().nextAttemptAt()).isEqualTo(now.plusSeconds(5));
        assertThat(first.after().expiresAt()).isEqualTo(now.plus(Duration.ofMinutes(15)));
        assertThat(again.after().parkCount()).isEqualTo(1);
        assertThat(again.after().expiresAt()).as("expiry counts from the first park").isEqualTo(first.after().expiresAt());
        assertThat(again.after().parkReason()).isEqualTo("hotels_down: timeout");
        assertThat(first.reason().code()).as("customers see the code").isEqualTo("hotels_down");
    }

    @Test
    void shouldFailWithoutCompensatingWhenTheFirstStepIsRefused() {
        Transition<Trip> t = SagaDecisions.afterSyncStep(saga, begin(), StepResult.refused(Reason.of("no_rooms", "hotel said: full up")), now, timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.FAILED);
        assertThat(t.after().isTerminal()).isTrue();
        assertThat(t.reason()).isEqualTo(Reason.of("no_rooms", "hotel said: full up"));
        assertThat(t.after().cause().code()).isEqualTo("no_rooms");
        assertThat(t.messages()).extracting(OutgoingMessage::type).containsExactly("TripFAILED");
    }

    @Test
    void shouldCompensateEarlierStepsWhenAReplyIsARefusal() {
        SagaInstance<Trip> awaiting = awaitingFlight();

        Transition<Trip> t = SagaDecisions.afterReply(saga, awaiting, StepResult.refused(Reason.of("flight_full")), now, timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(t.after().step()).isEqualTo("BOOK_HOTEL");
        assertThat(t.runsOn()).isTrue();
        assertThat(t.messages()).isEmpty();
    }

    @Test
    void shouldEndCompensatedAfterTheLastCompensation() {
        SagaInstance<Trip> compensating = SagaDecisions.afterReply(saga, awaitingFlight(),
                StepResult.refused(Reason.of("flight_full")), now, timings).after();

        Transition<Trip> t = SagaDecisions.afterSyncStep(saga, compensating, StepResult.done(TripSaga.trip()), now,
                timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPENSATED);
        assertThat(t.messages()).extracting(OutgoingMessage::type).containsExactly("TripCOMPENSATED");
        assertThat(t.reason().code()).as("the end says why it turned back").isEqualTo("flight_full");
        assertThat(t.messages().get(0).payload()).isEqualTo("flight_full");
    }

    @Test
    void shouldUndoAStepThatGaveUpAndEndFailedWhenNothingElseWasDone() {
        // Given the first step gives up on an outcome it does not know
        Transition<Trip> gaveUp = SagaDecisions.afterSyncStep(saga, begin(),
                StepResult.abandoned(Reason.of("hotels_down", "timed out")), now, timings);

        // Then the step itself is undone first
        assertThat(gaveUp.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(gaveUp.after().step()).isEqualTo("BOOK_HOTEL");
        assertThat(gaveUp.runsOn()).isTrue();

        // And when its undo is done the saga ends FAILED (nothing had been done), saying why
        Transition<Trip> end = SagaDecisions.afterSyncStep(saga, gaveUp.after(), StepResult.done(TripSaga.trip()),
                now, timings);
        assertThat(end.after().status()).isEqualTo(SagaStatus.FAILED);
        assertThat(end.reason().code()).isEqualTo("hotels_down");
        assertThat(end.after().parkCount()).isZero();
    }

    @Test
    void shouldParkAnUnknownOutcomeLikeAnUnavailableOne() {
        Transition<Trip> t = SagaDecisions.afterSyncStep(saga, begin(),
                StepResult.unknown("hotels", Reason.of("hotels_down", "timed out")), now, timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.PARKED);
        assertThat(t.after().parkedOn()).isEqualTo("hotels");
        assertThat(t.after().parkCount()).isEqualTo(1);
    }

    @Test
    void shouldMakeARefusedCompensationAnIncidentInsteadOfALoop() {
        // Given a saga undoing its hotel booking
        SagaInstance<Trip> compensating = SagaDecisions.afterReply(saga, awaitingFlight(),
                StepResult.refused(Reason.of("flight_full")), now, timings).after();

        // When the hotel refuses the cancellation for good
        Transition<Trip> t = SagaDecisions.afterSyncStep(saga, compensating,
                StepResult.refused(Reason.of("hotel_refused", "400 unknown booking")), now, timings);

        // Then the saga stays where it is, visibly, and nothing runs it again
        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(t.after().incident().cause()).isEqualTo(IncidentCause.PARTICIPANT_REFUSED);
        assertThat(t.after().incident().detail()).contains("400 unknown booking");
        assertThat(t.after().incident().at()).isEqualTo(now);
        assertThat(t.after().nextAttemptAt()).isNull();
        assertThat(t.runsOn()).isFalse();
        assertThat(t.raisesIncident()).isTrue();
        assertThat(t.reason().code()).isEqualTo("participant_refused");
    }

    @Test
    void shouldRetryAThrowingStepWithBackOffThenMakeItAnIncident() {
        SagaTimings twoRetries = new SagaTimings(Duration.ofSeconds(30), Duration.ofSeconds(5),
                Duration.ofMinutes(15), 2);
        StepResult<Trip> boom = StepResult.failed(Reason.of(Reason.STEP_FAILED, "java.lang.IllegalStateException"));

        Transition<Trip> first = SagaDecisions.afterSyncStep(saga, begin(), boom, now, twoRetries);
        Transition<Trip> second = SagaDecisions.afterSyncStep(saga, first.after(), boom, now, twoRetries);
        Transition<Trip> third = SagaDecisions.afterSyncStep(saga, second.after(), boom, now, twoRetries);

        assertThat(first.after().status()).isEqualTo(SagaStatus.RUNNING);
        assertThat(first.after().nextAttemptAt()).isEqualTo(now.plusSeconds(5));
        assertThat(first.runsOn()).as("retried after its back-off, not at once").isFalse();
        assertThat(first.after().parkCount()).as("held up once").isEqualTo(1);
        assertThat(second.after().nextAttemptAt()).isEqualTo(now.plusSeconds(10));
        assertThat(second.after().stepRetries()).isEqualTo(2);
        assertThat(second.after().incident()).isNull();
        assertThat(third.after().incident().cause()).isEqualTo(IncidentCause.STEP_FAILED);
        assertThat(third.after().nextAttemptAt()).isNull();
        assertThat(third.after().status()).isEqualTo(SagaStatus.RUNNING);
    }

    @Test
    void shouldResendTheCommandUnderTheSameDataAndCountIt() {
        SagaInstance<Trip> late = SagaDecisions.afterStepTimeout(saga, awaitingFlight()).after();

        Transition<Trip> t = SagaDecisions.resendCommand(saga, late, "no answer");

        assertThat(t.messages()).singleElement().satisfies(m -> {
            assertThat(m.type()).isEqualTo("BookFlight");
            assertThat(m.payload()).isEqualTo(late.data());
        });
        assertThat(t.after().stepRetries()).isEqualTo(1);
        assertThat(t.after().label()).as("still unknown").isEqualTo("FLIGHT_UNKNOWN");
        assertThat(t.after().status()).isEqualTo(SagaStatus.AWAITING_REPLY);
        assertThat(t.reason().code()).isEqualTo(Reason.COMMAND_RESENT);
    }

    @Test
    void shouldClearAnIncidentWhenTheSagaMovesToAnotherStep() {
        SagaInstance<Trip> waiting = awaitingFlight();
        SagaInstance<Trip> marked = SagaDecisions.incident(waiting, IncidentCause.POISON_REPLY, "bad reply", now)
                .after();

        Transition<Trip> t = SagaDecisions.afterReply(saga, marked, StepResult.done(waiting.data()), now, timings);

        assertThat(marked.incident().cause()).isEqualTo(IncidentCause.POISON_REPLY);
        assertThat(t.after().incident()).isNull();
        assertThat(t.after().step()).isEqualTo("BOOK_CAR");
    }

    @Test
    void shouldKeepCompensatingParkedWhenTheCompensationCannotRun() {
        SagaInstance<Trip> compensating = SagaDecisions.afterReply(saga, awaitingFlight(),
                StepResult.refused(Reason.of("flight_full")), now, timings).after();

        Transition<Trip> t = SagaDecisions.afterSyncStep(saga, compensating,
                StepResult.unavailable("hotels", Reason.of("hotels_down", "refused connection")), now, timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(t.after().parkedOn()).isEqualTo("hotels");
        assertThat(t.after().expiresAt()).as("compensations never expire").isNull();
        assertThat(t.after().nextAttemptAt()).isEqualTo(now.plusSeconds(5));
    }

    @Test
    void shouldWriteHistoryForAParkButNotForEachRetryOfIt() {
        // Given a compensation parked on an unavailable participant
        SagaInstance<Trip> compensating = SagaDecisions.afterReply(saga, awaitingFlight(),
                StepResult.refused(Reason.of("flight_full")), now, timings).after();
        Transition<Trip> parked = SagaDecisions.afterSyncStep(saga, compensating,
                StepResult.unavailable("hotels", Reason.of("hotels_down", "refused connection")), now, timings);

        // When it is tried again and the participant is still down
        Transition<Trip> again = SagaDecisions.afterSyncStep(saga, parked.after(),
                StepResult.unavailable("hotels", Reason.of("hotels_down", "refused connection")),
                now.plusSeconds(5), timings);

        // Then the park is history, the retry is only counted on the saga
        assertThat(SagaStore.changesState(parked)).isTrue();
        assertThat(SagaStore.changesState(again)).isFalse();
        assertThat(again.after().parkCount()).isGreaterThanOrEqualTo(parked.after().parkCount());
    }

    @Test
    void shouldPublishAsynchronousCompensationsWhileUndoing() {
        SagaInstance<Trip> atCar = SagaDecisions.afterReply(saga, awaitingFlight(),
                StepResult.done(new Trip("ada", true, false)), now, timings).after();

        Transition<Trip> t = SagaDecisions.afterSyncStep(saga, atCar, StepResult.refused(Reason.of("no_cars")), now, timings);

        assertThat(t.messages()).extracting(OutgoingMessage::type).containsExactly("CancelFlight");
        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(t.after().step()).isEqualTo("BOOK_HOTEL");
    }

    @Test
    void shouldLabelALateReplyVisiblyAndStillAcceptIt() {
        SagaInstance<Trip> late = SagaDecisions.afterStepTimeout(saga, awaitingFlight()).after();
        var reply = new IncomingMessage(UUID.randomUUID(), "FlightBooked", "k", null, JsonNodeFactory.instance.objectNode());

        Transition<Trip> t = SagaDecisions.afterReply(saga, late, StepResult.done(late.data()), now, timings);

        assertThat(late.label()).isEqualTo("FLIGHT_UNKNOWN");
        assertThat(late.stepDeadlineAt()).isNull();
        assertThat(late.status()).isEqualTo(SagaStatus.AWAITING_REPLY);
        assertThat(reply.type()).isEqualTo("FlightBooked");
        assertThat(t.after().step()).isEqualTo("BOOK_CAR");
    }

    @Test
    void shouldUndoTheParkedStepItselfWhenASagaExpires() {
        // Given a saga parked on its first step (an attempt may have booked the hotel before timing out)
        SagaInstance<Trip> parked = SagaDecisions.afterSyncStep(saga, begin(),
                StepResult.unavailable("hotels", Reason.of("hotels_down", "down")), now, timings).after();

        // When it expires
        Transition<Trip> t = SagaDecisions.expire(saga, parked, now.plus(Duration.ofMinutes(16)), timings);

        // Then the hotel booking is cancelled before the saga ends
        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(t.after().step()).isEqualTo("BOOK_HOTEL");
        assertThat(t.after().parkedOn()).isNull();
        assertThat(t.reason().code()).isEqualTo("expired");
    }

    @Test
    void shouldCompleteAfterTheLastStep() {
        SagaInstance<Trip> atCar = SagaDecisions.afterReply(saga, awaitingFlight(),
                StepResult.done(new Trip("ada", true, false)), now, timings).after();

        Transition<Trip> t = SagaDecisions.afterSyncStep(saga, atCar, StepResult.done(new Trip("ada", true, true)), now,
                timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPLETED);
        assertThat(t.after().data().carBooked()).isTrue();
        assertThat(t.messages()).extracting(OutgoingMessage::type).containsExactly("TripCOMPLETED");
    }

    @Test
    void shouldRefuseAReplyWhenNotWaitingForOne() {
        assertThatThrownBy(() -> SagaDecisions.afterReply(saga, begin(), StepResult.done(TripSaga.trip()), now, timings))
                .isInstanceOf(IllegalSagaTransition.class);
    }

    @Test
    void shouldNeverLeaveATerminalStatus() {
        for (SagaStatus terminal : new SagaStatus[] {SagaStatus.COMPLETED, SagaStatus.COMPENSATED, SagaStatus.FAILED}) {
            for (SagaStatus next : SagaStatus.values()) {
                assertThat(terminal.canMoveTo(next)).as(terminal + " -> " + next).isFalse();
            }
        }
        assertThat(SagaStatus.COMPENSATING.canMoveTo(SagaStatus.COMPLETED)).isFalse();
    }

    private SagaInstance<Trip> begin() {
        return SagaDecisions.beginTransition(saga, UUID.randomUUID(), TripSaga.trip(), now, timings).after();
    }

    private SagaInstance<Trip> awaitingFlight() {
        return SagaDecisions.afterSyncStep(saga, begin(), StepResult.done(new Trip("ada", true, false)), now, timings)
                .after();
    }
}
