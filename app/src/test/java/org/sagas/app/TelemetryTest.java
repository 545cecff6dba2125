package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** When the OTEL_* variables ask for traces (ADR 0018): off unless they do. */
class TelemetryTest {
    private static boolean wanted(Map<String, String> env) {
        return Telemetry.wanted(env::get, Map.<String, String>of()::get);
    }

    @Test
    void shouldStayOffWithoutOpenTelemetryVariables() {
        assertThat(wanted(Map.of())).isFalse();
        assertThat(Telemetry.from(Map.<String, String>of()::get, Map.<String, String>of()::get).tracing().on())
                .isFalse();
    }

    @Test
    void shouldTraceWhenAnExporterOrAnOtlpEndpointIsSet() {
        assertThat(wanted(Map.of("OTEL_TRACES_EXPORTER", "otlp"))).isTrue();
        assertThat(wanted(Map.of("OTEL_TRACES_EXPORTER", "logging"))).isTrue();
        assertThat(wanted(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://localhost:4318"))).isTrue();
        assertThat(wanted(Map.of("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "http://localhost:4318/v1/traces")))
                .isTrue();
    }

    @Test
    void shouldStayOffWhenTheExporterIsNoneOrTheSdkDisabled() {
        assertThat(wanted(Map.of("OTEL_TRACES_EXPORTER", "none",
                "OTEL_EXPORTER_OTLP_ENDPOINT", "http://jaeger:4318"))).isFalse();
        assertThat(wanted(Map.of("OTEL_SDK_DISABLED", "true", "OTEL_TRACES_EXPORTER", "otlp"))).isFalse();
        assertThat(wanted(Map.of("OTEL_TRACES_EXPORTER", " "))).isFalse();
    }

    @Test
    void shouldReadSystemPropertiesBeforeVariables() {
        assertThat(Telemetry.wanted(Map.of("OTEL_TRACES_EXPORTER", "otlp")::get,
                Map.of("otel.traces.exporter", "none")::get)).isFalse();
        assertThat(Telemetry.wanted(Map.<String, String>of()::get,
                Map.of("otel.traces.exporter", "logging")::get)).isTrue();
    }

    @Test
    void shouldStartAnSdkThatTracesWhenAsked() {
        try (Telemetry telemetry = Telemetry.from(Map.of("OTEL_TRACES_EXPORTER", "logging")::get,
                Map.<String, String>of()::get)) {
            assertThat(telemetry.tracing().on()).isTrue();
        }
    }

    @Test
    void shouldExportOverOtlpHttpWithTheJdkClientWhenOnlyAnEndpointIsSet() {
        // The Java SDK's own default protocol is gRPC, which would need OkHttp: the product asks for HTTP.
        try (Telemetry telemetry = Telemetry.from(Map.of("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:9")::get,
                Map.<String, String>of()::get)) {
            assertThat(telemetry.tracing().on()).isTrue();
        }
    }
}
