package org.sagas.app;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import java.util.Locale;
import java.util.Map;
import java.util.function.Function;
import org.sagas.orchestrator.tracing.Tracing;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The process's traces (ADR 0018): off unless the standard OpenTelemetry variables ask for them
 * ({@code OTEL_TRACES_EXPORTER} other than {@code none}, or an OTLP endpoint), in which case the
 * SDK is configured by {@code opentelemetry-sdk-extension-autoconfigure} from every {@code OTEL_*}
 * variable (and {@code otel.*} system property) as its documentation describes. Only traces:
 * metrics stay Prometheus's and logs stay logback's unless those variables say otherwise.
 * Never installed as {@code GlobalOpenTelemetry}: the instance travels through the wiring. Closing
 * flushes and stops the SDK this class started. Not thread-safe: start and close from one thread.
 */
final class Telemetry implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Telemetry.class);
    private static final Telemetry OFF = new Telemetry(Tracing.off(), null);

    private final Tracing tracing;
    private final OpenTelemetrySdk owned;

    private Telemetry(Tracing tracing, OpenTelemetrySdk owned) {
        this.tracing = tracing;
        this.owned = owned;
    }

    /** No traces: the default. */
    static Telemetry off() {
        return OFF;
    }

    /** Traces with an instance the caller set up and will close (tests, embedding). */
    static Telemetry with(OpenTelemetry telemetry) {
        return new Telemetry(Tracing.of(telemetry), null);
    }

    /** What the process's environment and system properties ask for. */
    static Telemetry fromEnvironment() {
        return from(System::getenv, System::getProperty);
    }

    /** An SDK when {@link #wanted}, else {@link #off()}. */
    static Telemetry from(Function<String, String> env, Function<String, String> properties) {
        if (!wanted(env, properties)) {
            return off();
        }
        OpenTelemetrySdk sdk = AutoConfiguredOpenTelemetrySdk.builder()
                // Defaults only: any OTEL_* variable or otel.* property given wins over these. OTLP
                // over HTTP (4318), which the JDK's client sends; the Java SDK's own default is gRPC.
                .addPropertiesSupplier(() -> Map.of(
                        "otel.service.name", "sagas",
                        "otel.exporter.otlp.protocol", "http/protobuf",
                        "otel.metrics.exporter", "none",
                        "otel.logs.exporter", "none"))
                // What decided to trace is what the SDK sees (the same variables, unless a caller
                // passed others).
                .addPropertiesCustomizer(config -> decisive(env, properties))
                .disableShutdownHook()
                .build()
                .getOpenTelemetrySdk();
        log.info("traces on: exporter {} (OTEL_* variables)", setting(env, properties, "OTEL_TRACES_EXPORTER")
                .orElse("otlp"));
        return new Telemetry(Tracing.of(sdk), sdk);
    }

    /**
     * Whether the variables ask for traces: {@code OTEL_TRACES_EXPORTER} set to something other
     * than {@code none}, or {@code OTEL_EXPORTER_OTLP_ENDPOINT} / {@code
     * OTEL_EXPORTER_OTLP_TRACES_ENDPOINT} set; never when {@code OTEL_SDK_DISABLED=true}.
     */
    static boolean wanted(Function<String, String> env, Function<String, String> properties) {
        if (setting(env, properties, "OTEL_SDK_DISABLED").map("true"::equalsIgnoreCase).orElse(false)) {
            return false;
        }
        var exporter = setting(env, properties, "OTEL_TRACES_EXPORTER");
        if (exporter.isPresent()) {
            return !exporter.get().trim().equalsIgnoreCase("none");
        }
        return setting(env, properties, "OTEL_EXPORTER_OTLP_ENDPOINT").isPresent()
                || setting(env, properties, "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT").isPresent();
    }

    /** The settings {@link #wanted} read, as the SDK's property names. */
    private static Map<String, String> decisive(Function<String, String> env, Function<String, String> properties) {
        Map<String, String> given = new java.util.HashMap<>();
        for (String name : java.util.List.of("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_ENDPOINT",
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")) {
            setting(env, properties, name).ifPresent(v -> given.put(name.toLowerCase(Locale.ROOT).replace('_', '.'), v));
        }
        return given;
    }

    /** A variable, or its system property ({@code OTEL_FOO_BAR} → {@code otel.foo.bar}), when not blank. */
    private static java.util.Optional<String> setting(Function<String, String> env,
            Function<String, String> properties, String name) {
        String value = properties.apply(name.toLowerCase(Locale.ROOT).replace('_', '.'));
        if (value == null || value.isBlank()) {
            value = env.apply(name);
        }
        return value == null || value.isBlank() ? java.util.Optional.empty() : java.util.Optional.of(value);
    }

    Tracing tracing() {
        return tracing;
    }

    @Override
    public void close() {
        if (owned != null) {
            owned.close();
        }
    }
}
