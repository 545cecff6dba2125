package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A second, small saga that runs on the same engine untouched: book a hotel (synchronous, with a
 * cancellation), then a flight (asynchronous, with a refund command), then a car (synchronous).
 */
final class TripSaga implements SagaDefinition<TripSaga.Trip> {
    record Trip(String traveller, boolean hotelBooked, boolean carBooked) {}

    /** What the synchronous participants will answer next; tests set it. */
    final AtomicReference<RuntimeException> hotelThrows = new AtomicReference<>();
    /** Runs inside the hotel step before it answers (tests block it to race other runners). */
    final AtomicReference<Runnable> insideHotel = new AtomicReference<>(() -> {});
    /** Every saga the hotel cancellation ran for, once per run. */
    final java.util.Queue<UUID> hotelCancels = new java.util.concurrent.ConcurrentLinkedQueue<>();
    final AtomicReference<StepResult<Trip>> hotelAnswer = new AtomicReference<>();
    final AtomicReference<StepResult<Trip>> carAnswer = new AtomicReference<>();
    final AtomicReference<StepResult<Trip>> hotelCancelAnswer = new AtomicReference<>();
    /** Every saga the hotel step ran for, once per run. */
    final java.util.Queue<UUID> hotelRuns = new java.util.concurrent.ConcurrentLinkedQueue<>();

    @Override
    public String type() {
        return "trip";
    }

    @Override
    public Class<Trip> dataType() {
        return Trip.class;
    }

    @Override
    public List<SagaStep<Trip>> steps() {
        return List.of(
                new SagaStep.Sync<>("BOOK_HOTEL", (d, c) -> {
                    hotelRuns.add(c.sagaId());
                    insideHotel.get().run();
                    RuntimeException boom = hotelThrows.get();
                    if (boom != null) {
                        throw boom;
                    }
                    return answer(hotelAnswer, d, new Trip(d.traveller(), true, false));
                },
                        (d, c) -> {
                            hotelCancels.add(c.sagaId());
                            return answer(hotelCancelAnswer, d, new Trip(d.traveller(), false, d.carBooked()));
                        }),
                new SagaStep.Async<>("BOOK_FLIGHT",
                        (id, d) -> new OutgoingMessage("flights.commands", id.toString(), "BookFlight", d),
                        (d, reply) -> switch (reply.type()) {
                            case "FlightBooked" -> StepResult.done(d);
                            case "FlightFull" -> StepResult.refused(Reason.of("flight_full", "no seats left"));
                            default -> null;
                        }, Duration.ofSeconds(30),
                        (id, d) -> new OutgoingMessage("flights.commands", id.toString(), "CancelFlight", d)),
                new SagaStep.Sync<>("BOOK_CAR", (d, c) -> answer(carAnswer, d, new Trip(d.traveller(), d.hotelBooked(),
                        true)), null));
    }

    private static StepResult<Trip> answer(AtomicReference<StepResult<Trip>> ref, Trip current, Trip booked) {
        StepResult<Trip> r = ref.get();
        return r == null ? StepResult.done(booked) : r;
    }

    @Override
    public String label(Situation<Trip> s) {
        return s.status() == SagaStatus.AWAITING_REPLY && s.stepTimedOut() ? "FLIGHT_UNKNOWN" : "TRIP_" + s.status();
    }

    @Override
    public List<OutgoingMessage> onEnd(SagaInstance<Trip> ended, Reason reason) {
        return List.of(new OutgoingMessage("trips.events", ended.id().toString(), "Trip" + ended.status(),
                reason.code()));
    }

    static Trip trip() {
        return new Trip("ada", false, false);
    }

    static UUID newId() {
        return UUID.randomUUID();
    }
}
