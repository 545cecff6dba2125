package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.OrchestratorSettings;

class SettingsTest {

    @Test
    void shouldKeepTheConfigurationReferenceInStepWithTheTables() throws Exception {
        // Given the reference generated from the settings tables
        String generated = Settings.reference();
        // Then docs/configuration.md is exactly that (regenerate: ./sagas settings > docs/configuration.md)
        Path doc = Path.of("..", "docs", "configuration.md");
        assertThat(Files.readString(doc))
                .as("docs/configuration.md is out of date: run ./sagas settings > docs/configuration.md")
                .isEqualTo(generated);
    }

    @Test
    void shouldNameTheVariableAndItsRangeWhenAValueIsOutOfRange() {
        assertThatThrownBy(() -> Settings.from(Map.of("SAGA_PENDING_CAP", "-1")::get, Map.of()))
                .isInstanceOf(ConfigurationError.class)
                .hasMessage("SAGA_PENDING_CAP must be integer 0 to 10000000 (orders), was '-1'");
        assertThatThrownBy(() -> Settings.from(Map.of("SAGA_DEGRADED_MODE", "yes")::get, Map.of()))
                .hasMessageContaining("SAGA_DEGRADED_MODE must be boolean true or false");
        assertThatThrownBy(() -> Settings.from(Map.of("SAGA_INVENTORY_LAYERS", "breaker,moat")::get, Map.of()))
                .hasMessageContaining("SAGA_INVENTORY_LAYERS must be list any of breaker, bulkhead, retries or none");
    }

    @Test
    void shouldLetFlagsWinOverVariablesAndDefaultTheRest() {
        Settings s = Settings.from(Map.of("SAGA_HTTP_PORT", "9000", "SAGA_STEP_LEASE_MS", "1500")::get,
                Map.of("--port", "9100"));
        assertThat(s.apiPort()).isEqualTo(9100);
        assertThat(s.orchestrator().get(OrchestratorSettings.STEP_LEASE)).isEqualTo(Duration.ofMillis(1500));
        assertThat(s.orchestrator().get(OrchestratorSettings.PENDING_CAP)).isEqualTo(10_000);
        assertThat(s.raw()).containsEntry("SAGA_HTTP_PORT", "9100").containsKey("SAGA_INVENTORY_TIMEOUT_MS");
    }

    @Test
    void shouldDeclareEveryVariableOnce() {
        assertThat(Settings.variables()).contains("SAGA_DB_URL", "SAGA_PENDING_CAP", "SAGA_PAYMENT_TIMEOUT_MS");
        long declared = Settings.tables().stream().mapToLong(t -> t.settings().size()).sum();
        assertThat(Settings.variables()).hasSize((int) declared);
    }
}
