package org.sagas.app;

import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.EdgeLimits;
import org.sagas.orchestrator.http.OpenApiDocument;

/**
 * Health and metrics for a process that runs roles without the API (scale-out), on
 * {@code SAGA_HTTP_PORT}, so Prometheus scrapes every process the same way. Thread-safe.
 */
final class OpsServer implements AutoCloseable {
    /** This listener's contract, {@code GET /openapi.json}. */
    private static final OpenApiDocument CONTRACT = OpenApiDocument.load(OpsServer.class, "openapi-ops.json");
    private final Javalin app;

    private OpsServer(Javalin app) {
        this.app = app;
    }

    static OpsServer start(Supplier<Map<String, Boolean>> readiness, PrometheusMeterRegistry registry, String host,
            int port, Consumer<RoutesConfig> extraRoutes, EdgeLimits limits) {
        Javalin app = Javalin.create(config -> {
            extraRoutes.accept(config.routes);
            config.startup.showJavalinBanner = false;
            limits.apply(config);
            config.routes.get("/health/live", ctx -> ctx.json(Map.of("status", "UP")));
            config.routes.get("/health/ready", ctx -> {
                Map<String, Boolean> checks = readiness.get();
                boolean up = checks.values().stream().allMatch(Boolean::booleanValue);
                ctx.status(up ? 200 : 503).contentType("application/json")
                        .result(Json.write(Map.of("status", up ? "UP" : "DOWN", "checks", checks)));
            });
            config.routes.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                    .result(registry.scrape()));
            CONTRACT.register(config.routes);
        }).start(host, port);
        limits.applyIdleTimeout(app.jettyServer().server());
        return new OpsServer(app);
    }

    int port() {
        return app.port();
    }

    /** The routes this listener registered, sorted (for the contract test). */
    java.util.List<String> routes() {
        return OpenApiDocument.routesOf(app);
    }

    @Override
    public void close() {
        app.stop();
    }
}
