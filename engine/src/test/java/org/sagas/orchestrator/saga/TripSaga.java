package org.sagas.orchestrator.saga;

import org.sagas.orchestrator.messaging.OutgoingMessage;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;

/**
 * A second, small saga that runs on the same engine untouched: book a hotel (synchronous, with a
 * cancellation), then a flight (asynchronous, with a refund command), then a car (synchronous).
 * Its version 2 ({@link #v2()}) is a second version of a saga (docs/design.md): it insures the trip
 * after the car (an added step), and its hotel cancellation pays the late-cancellation fee (a changed
 * compensation).
 */
final class TripSaga implements SagaDefinition<TripSaga.Trip> {
    record Trip(String traveller, boolean hotelBooked, boolean carBooked) {}

    private final int version;

    /** Version 1. */
    TripSaga() {
        this(1);
    }

    private TripSaga(int version) {
        this.version = version;
    }

    static TripSaga v2() {
        return new TripSaga(2);
    }

    /** Every saga whose hotel cancellation paid the fee (version 2's compensation), once per run. */
    final java.util.Queue<UUID> hotelFeesPaid = new java.util.concurrent.ConcurrentLinkedQueue<>();
    /** Every saga the insurance step (version 2's) ran for. */
    final java.util.Queue<UUID> insured = new java.util.concurrent.ConcurrentLinkedQueue<>();

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
    public int version() {
        return version;
    }

    @Override
    public Class<Trip> dataType() {
        return Trip.class;
    }

    @Override
    public List<SagaStep<Trip>> steps() {
        List<SagaStep<Trip>> steps = new java.util.ArrayList<>(List.of(
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
                            if (version >= 2) {
                                hotelFeesPaid.add(c.sagaId());
                            }
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
                        true)), null)));
        if (version >= 2) {
            steps.add(new SagaStep.Sync<>("INSURE_TRIP", (d, c) -> {
                insured.add(c.sagaId());
                return StepResult.done(d);
            }, null));
        }
        return List.copyOf(steps);
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
