package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.saga.TripSaga.Trip;

/** An operator's retry and cancel, decided without a database (docs/operations-admin.md). */
class OperatorDecisionsTest {
    private final TripSaga saga = new TripSaga();
    private final SagaTimings timings = new SagaTimings(Duration.ofSeconds(30), Duration.ofSeconds(5),
            Duration.ofMinutes(15));
    private final Instant now = Instant.parse("2026-11-29T10:00:00Z");

    @Test
    void shouldClaimAParkedStepForTheOperatorWithoutUnparkingIt() {
        SagaInstance<Trip> parked = parked();

        Transition<Trip> t = SagaDecisions.retry(saga, parked, "retry by ops", now.plusSeconds(1), timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.PARKED);
        assertThat(t.after().parkedOn()).isEqualTo("hotels");
        assertThat(t.after().nextAttemptAt()).as("leased to the caller").isEqualTo(now.plusSeconds(31));
        assertThat(t.after().version()).isEqualTo(parked.version() + 1);
        assertThat(t.reason()).isEqualTo(Reason.of(Reason.OPERATOR_RETRY, "retry by ops"));
        assertThat(t.messages()).isEmpty();
    }

    @Test
    void shouldSendTheAwaitedCommandAgainWithAFreshDeadlineWhenRetried() {
        SagaInstance<Trip> timedOut = SagaDecisions.afterStepTimeout(saga, awaitingFlight()).after();
        assertThat(timedOut.label()).isEqualTo("FLIGHT_UNKNOWN");

        Transition<Trip> t = SagaDecisions.retry(saga, timedOut, "resend", now.plusSeconds(60), timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.AWAITING_REPLY);
        assertThat(t.after().stepDeadlineAt()).isEqualTo(now.plusSeconds(90));
        assertThat(t.after().label()).as("waiting again, no longer unknown").isEqualTo("TRIP_AWAITING_REPLY");
        assertThat(t.messages()).extracting(OutgoingMessage::type).containsExactly("BookFlight");
    }

    @Test
    void shouldUndoTheParkedStepItselfWhenCancelled() {
        Transition<Trip> t = SagaDecisions.cancel(saga, parked(), "cancelled by ops: customer asked", "cancelled", now,
                timings);

        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(t.after().step()).isEqualTo("BOOK_HOTEL");
        assertThat(t.after().parkedOn()).isNull();
        assertThat(t.after().nextAttemptAt()).isEqualTo(now.plusSeconds(30));
        assertThat(t.reason()).isEqualTo(Reason.of("cancelled", "cancelled by ops: customer asked"));
    }

    @Test
    void shouldSendTheAwaitedStepsCompensationAndUndoEarlierStepsWhenCancelled() {
        Transition<Trip> t = SagaDecisions.cancel(saga, awaitingFlight(), "cancelled by ops", "cancelled", now,
                timings);

        assertThat(t.messages()).extracting(OutgoingMessage::type).containsExactly("CancelFlight");
        assertThat(t.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(t.after().step()).isEqualTo("BOOK_HOTEL");
        assertThat(t.after().stepDeadlineAt()).isNull();
    }

    @Test
    void shouldEndWithTheStableReasonWhenNothingIsLeftToUndoSynchronously() {
        // A saga at its first step whose compensation is the only one: undone inline, then the end.
        SagaInstance<Trip> compensating = SagaDecisions.cancel(saga, parked(), "cancelled by ops: free text",
                "cancelled", now, timings).after();

        Transition<Trip> end = SagaDecisions.afterSyncStep(saga, compensating, StepResult.done(TripSaga.trip()), now,
                timings);

        // Nothing was completed before the cancelled step, so the saga ends FAILED (an order: CANCELLED).
        assertThat(end.after().status()).isEqualTo(SagaStatus.FAILED);
        assertThat(end.messages()).extracting(OutgoingMessage::payload).doesNotContain("cancelled by ops: free text");
    }

    @Test
    void shouldOnlyMakeACompensationDueWhenCancellingASagaAlreadyCompensating() {
        SagaInstance<Trip> compensating = SagaDecisions.cancel(saga, parked(), "first", "cancelled", now, timings)
                .after();

        Transition<Trip> again = SagaDecisions.cancel(saga, compensating, "second", "cancelled", now.plusSeconds(5),
                timings);

        assertThat(again.after().status()).isEqualTo(SagaStatus.COMPENSATING);
        assertThat(again.after().nextAttemptAt()).isEqualTo(now.plusSeconds(35));
        assertThat(again.messages()).isEmpty();
    }

    @Test
    void shouldRefuseBothActionsOnAnEndedSaga() {
        SagaInstance<Trip> failed = SagaDecisions.afterSyncStep(saga, begin(), StepResult.refused(Reason.of("no_rooms")), now,
                timings).after();

        assertThat(SagaDecisions.operatorRefusal(failed)).hasValueSatisfying(
                why -> assertThat(why).contains("ended", "FAILED"));
        assertThat(SagaDecisions.operatorRefusal(parked())).isEmpty();
        assertThatThrownBy(() -> SagaDecisions.retry(saga, failed, "r", now, timings))
                .isInstanceOf(IllegalSagaTransition.class);
        assertThatThrownBy(() -> SagaDecisions.cancel(saga, failed, "c", "cancelled", now, timings))
                .isInstanceOf(IllegalSagaTransition.class);
    }

    private SagaInstance<Trip> begin() {
        return SagaDecisions.beginTransition(saga, UUID.randomUUID(), TripSaga.trip(), now, timings).after();
    }

    private SagaInstance<Trip> parked() {
        return SagaDecisions.afterSyncStep(saga, begin(), StepResult.unavailable("hotels", Reason.of("breaker_open")), now,
                timings).after();
    }

    private SagaInstance<Trip> awaitingFlight() {
        return SagaDecisions.afterSyncStep(saga, begin(), StepResult.done(new Trip("ada", true, false)), now, timings)
                .after();
    }
}
