package org.sagas.orchestrator.saga;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.saga.TripSaga.Trip;

class SagaRegistryTest {
    private final TripSaga v1 = new TripSaga();
    private final TripSaga v2 = TripSaga.v2();

    @Test
    void shouldKeepSeveralVersionsOfATypeSideBySide() {
        // Given both versions registered
        SagaRegistry registry = SagaRegistry.empty().with(v2).with(v1);

        // Then each is found by its (type, version), and both are known, in order
        assertThat(registry.find(new SagaVersion("trip", 1))).containsSame(v1);
        assertThat(registry.find(new SagaVersion("trip", 2))).containsSame(v2);
        assertThat(registry.find(new SagaVersion("trip", 3))).isEmpty();
        assertThat(registry.known()).containsExactly(new SagaVersion("trip", 1), new SagaVersion("trip", 2));
    }

    @Test
    void shouldStartOnTheLowestVersionUntilAnotherIsChosen() {
        SagaRegistry registry = SagaRegistry.empty().with(v2).with(v1);

        assertThat(registry.starting("trip")).isSameAs(v1);
        assertThat(registry.startingOn("trip", 2).starting("trip")).isSameAs(v2);
        // Immutable: choosing made a new registry
        assertThat(registry.starting("trip")).isSameAs(v1);
    }

    @Test
    void shouldRefuseAVersionTwiceAChoiceNotRegisteredAndAnUnknownType() {
        SagaRegistry registry = SagaRegistry.empty().with(v1);

        assertThatThrownBy(() -> registry.with(new TripSaga())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trip v1 is registered already");
        assertThatThrownBy(() -> registry.startingOn("trip", 2)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("trip v2").hasMessageContaining("[trip v1]");
        assertThatThrownBy(() -> registry.starting("hike")).isInstanceOf(SagaException.class);
    }

    @Test
    void shouldRefuseAVersionThatReadsAnotherDataClass() {
        SagaDefinition<String> other = new SagaDefinition<>() {
            @Override
            public String type() {
                return "trip";
            }

            @Override
            public int version() {
                return 3;
            }

            @Override
            public Class<String> dataType() {
                return String.class;
            }

            @Override
            public List<SagaStep<String>> steps() {
                return List.of();
            }

            @Override
            public String label(Situation<String> situation) {
                return "X";
            }
        };

        assertThatThrownBy(() -> SagaRegistry.empty().with(v1).with(other))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("trip v1 reads");
    }

    @Test
    void shouldStampANewInstanceWithItsDefinitionsVersionAndDecideEachVersionOnItsOwn() {
        // Given a trip begun on each version, its hotel and car booked
        SagaTimings timings = SagaTimings.defaults();
        Instant now = Instant.parse("2026-12-03T10:00:00Z");
        SagaInstance<Trip> onV1 = atCar(v1, timings, now);
        SagaInstance<Trip> onV2 = atCar(v2, timings, now);

        // When the car is booked
        Transition<Trip> afterV1 = SagaDecisions.afterSyncStep(v1, onV1, StepResult.done(onV1.data()), now, timings);
        Transition<Trip> afterV2 = SagaDecisions.afterSyncStep(v2, onV2, StepResult.done(onV2.data()), now, timings);

        // Then version 1 ends there, version 2 goes on to insure the trip
        assertThat(onV1.definition()).isEqualTo(new SagaVersion("trip", 1));
        assertThat(onV2.definition()).isEqualTo(new SagaVersion("trip", 2));
        assertThat(afterV1.after().status()).isEqualTo(SagaStatus.COMPLETED);
        assertThat(afterV2.after().step()).isEqualTo("INSURE_TRIP");
        assertThat(afterV2.after().definition()).isEqualTo(new SagaVersion("trip", 2));
    }

    private static SagaInstance<Trip> atCar(TripSaga saga, SagaTimings timings, Instant now) {
        SagaInstance<Trip> begun = SagaDecisions.beginTransition(saga, UUID.randomUUID(), TripSaga.trip(), now, timings)
                .after();
        int car = saga.indexOf("BOOK_CAR");
        return begun.with(SagaStatus.RUNNING, car, "BOOK_CAR", "TRIP_RUNNING", begun.data());
    }
}
