package org.sagas.orchestrator.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ordering.OrderService;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.ordering.SubmitResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orchestrator's HTTP API (DESIGN.md section 9): orders, health, metrics. Thread-safe.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    static final int MAX_BODY_BYTES = 64 * 1024;
    static final int MAX_KEY_LENGTH = org.sagas.orchestrator.ordering.Limits.MAX_KEY;

    /** Decides, before any work, whether a request may proceed (load shedding, admission caps). */
    public interface Admission {
        /** Null to proceed, or a permit to release when the request ends. */
        Ticket admit(Context ctx, long deadlineEpochMillis);

        /** An admitted request's slot, released exactly once. */
        interface Ticket extends AutoCloseable {
            @Override
            void close();
        }

        Admission ALWAYS = (ctx, deadline) -> () -> {};
    }

    private final Javalin app;

    private ApiServer(Javalin app) {
        this.app = app;
    }

    /**
     * Starts the API on {@code host:port} (0 = any free port).
     *
     * @param readiness name of each dependency → whether it answers now
     */
    public static ApiServer start(String host, int port, OrderService orders, OrderStore store,
            Supplier<Map<String, Boolean>> readiness, PrometheusMeterRegistry registry, Admission admission,
            Clock clock, long defaultBudgetMillis, java.util.function.Consumer<io.javalin.config.RoutesConfig> more) {
        Routes routes = new Routes(orders, store, readiness, admission, clock, defaultBudgetMillis);
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.http.maxRequestSize = MAX_BODY_BYTES;
            QueuedThreadPool pool = new QueuedThreadPool(400, 16, 60_000);
            pool.setName("api");
            config.jetty.threadPool = pool;
            config.routes.post("/orders", routes::submit);
            config.routes.get("/orders/{id}", routes::order);
            config.routes.get("/orders", routes::list);
            config.routes.get("/health/live", ctx -> ctx.json(Map.of("status", "UP")));
            config.routes.get("/health/ready", routes::ready);
            config.routes.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                    .result(registry.scrape()));
            more.accept(config.routes);
            config.routes.exception(InvalidRequest.class, (e, ctx) -> Problems.invalid(ctx, e));
            config.routes.exception(HttpResponseException.class, (e, ctx) -> Problems.send(ctx, e.getStatus(),
                    "http-" + e.getStatus(), e.getMessage(), e.getMessage(), Map.of()));
            config.routes.exception(Exception.class, (e, ctx) -> {
                log.error("{} {} failed: {}", ctx.method(), ctx.path(), e.toString(), e);
                Problems.send(ctx, 500, "internal", "Internal error", "the request failed; see the server log",
                        Map.of());
            });
            config.routes.error(404, ctx -> {
                if (ctx.result() == null) {
                    Problems.send(ctx, 404, "not-found", "Not found", ctx.path() + " is not here", Map.of());
                }
            });
        }).start(host, port);
        return new ApiServer(app);
    }

    public int port() {
        return app.port();
    }

    @Override
    public void close() {
        app.stop();
    }

    /** The handlers; package-private for tests of single routes. */
    static final class Routes {
        private final OrderService orders;
        private final OrderStore store;
        private final Supplier<Map<String, Boolean>> readiness;
        private final Admission admission;
        private final Clock clock;
        private final long defaultBudgetMillis;

        Routes(OrderService orders, OrderStore store, Supplier<Map<String, Boolean>> readiness, Admission admission,
                Clock clock, long defaultBudgetMillis) {
            this.defaultBudgetMillis = defaultBudgetMillis;
            this.orders = orders;
            this.store = store;
            this.readiness = readiness;
            this.admission = admission;
            this.clock = clock;
        }

        void submit(Context ctx) {
            long deadline = deadline(ctx.header("X-Deadline"));
            String key = ctx.header("Idempotency-Key");
            if (key == null || key.isBlank()) {
                throw new InvalidRequest("Idempotency-Key", "header is required");
            }
            org.sagas.orchestrator.ordering.Limits.textProblem(key, MAX_KEY_LENGTH).ifPresent(problem -> {
                throw new InvalidRequest("Idempotency-Key", problem);
            });
            try (Admission.Ticket ticket = admission.admit(ctx, deadline)) {
                if (ticket == null) {
                    return; // refused; admission wrote the answer
                }
                byte[] body = ctx.bodyAsBytes();
                var request = OrderRequestParser.parse(body);
                SubmitResult result = orders.submit(key, request, deadline);
                if (result.orderId() != null && result.httpStatus() == 202) {
                    ctx.header("Location", "/orders/" + result.orderId());
                }
                if (result.replayed()) {
                    ctx.header("Idempotent-Replayed", "true");
                }
                ctx.status(result.httpStatus()).contentType(result.httpStatus() >= 400 ? Problems.CONTENT_TYPE
                        : "application/json").result(result.body());
            }
        }

        void order(Context ctx) {
            UUID id;
            try {
                id = UUID.fromString(ctx.pathParam("id"));
            } catch (IllegalArgumentException e) {
                throw new InvalidRequest("id", "must be an order id (UUID)");
            }
            var view = store.find(id);
            if (view.isEmpty()) {
                Problems.send(ctx, 404, "not-found", "Order not found", "no order " + id, Map.of());
                return;
            }
            ctx.contentType("application/json").result(Json.write(view.get()));
        }

        void list(Context ctx) {
            String statusParam = ctx.queryParam("status");
            OrderStatus status = null;
            if (statusParam != null) {
                try {
                    status = OrderStatus.valueOf(statusParam.toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new InvalidRequest("status", "must be one of " + java.util.Arrays.toString(OrderStatus.values()));
                }
            }
            int limit = 50;
            String limitParam = ctx.queryParam("limit");
            if (limitParam != null) {
                try {
                    limit = Integer.parseInt(limitParam);
                } catch (NumberFormatException e) {
                    throw new InvalidRequest("limit", "must be an integer from 1 to 1000");
                }
                if (limit < 1 || limit > 1000) {
                    throw new InvalidRequest("limit", "must be an integer from 1 to 1000");
                }
            }
            ctx.contentType("application/json").result(Json.write(store.list(status, limit)));
        }

        void ready(Context ctx) {
            Map<String, Boolean> checks = readiness.get();
            boolean up = checks.values().stream().allMatch(Boolean::booleanValue);
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("status", up ? "UP" : "DOWN");
            body.put("checks", checks);
            ctx.status(up ? 200 : 503).contentType("application/json").result(Json.write(body));
        }

        private long deadline(String header) {
            if (header == null || header.isBlank()) {
                return clock.millis() + defaultBudgetMillis;
            }
            try {
                long value = Long.parseLong(header.trim());
                if (value <= 0) {
                    throw new NumberFormatException();
                }
                return value;
            } catch (NumberFormatException e) {
                throw new InvalidRequest("X-Deadline", "must be an absolute time in epoch milliseconds");
            }
        }
    }
}
