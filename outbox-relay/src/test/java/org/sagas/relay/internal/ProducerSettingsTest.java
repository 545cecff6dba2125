package org.sagas.relay.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProducerSettingsTest {

    @Test
    void shouldBeIdempotentWithAcksAllAndAtMostFiveInFlight() {
        Map<String, Object> config = ProducerSettings.build("127.0.0.1:9092", "r1", Map.of());
        assertThat(config).containsEntry("acks", "all").containsEntry("enable.idempotence", true)
                .containsEntry("max.in.flight.requests.per.connection", 5)
                .containsEntry("client.id", "outbox-relay-r1");
    }

    @Test
    void shouldTakeHarmlessOverrides() {
        Map<String, Object> config = ProducerSettings.build("b:1", "r1", Map.of("linger.ms", 2, "compression.type", "lz4"));
        assertThat(config).containsEntry("linger.ms", 2).containsEntry("compression.type", "lz4");
    }

    @Test
    void shouldRefuseOverridesThatBreakOrderOrDurability() {
        assertThatThrownBy(() -> ProducerSettings.build("b:1", "r", Map.of("acks", "1")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("acks=all");
        assertThatThrownBy(() -> ProducerSettings.build("b:1", "r", Map.of("enable.idempotence", false)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("idempotent");
        assertThatThrownBy(() -> ProducerSettings.build("b:1", "r", Map.of("max.in.flight.requests.per.connection", 6)))
                .isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> ProducerSettings.build("b:1", "r", Map.of("transactional.id", "t")))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
