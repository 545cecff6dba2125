package org.sagas.orchestrator.http;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.http.BadMessageException;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.ordering.CancelOutcome;
import org.sagas.orchestrator.ordering.Limits;
import org.sagas.orchestrator.ordering.OrderRequest;
import org.sagas.orchestrator.ordering.OrderService;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.ordering.SubmitResult;
import org.sagas.orchestrator.resilience.Priority;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orchestrator's HTTP API (its contract: openapi.json beside it): orders, health, metrics. Thread-safe.
 */
public final class ApiServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ApiServer.class);
    static final int MAX_KEY_LENGTH = Limits.MAX_KEY;
    /** Requests refused at the edge, by reason: {@code saga_api_refused_total{reason}}. */
    static final String REFUSED = "saga.api.refused";
    /** The public API's contract, {@code GET /openapi.json}. */
    private static final OpenApiDocument CONTRACT = OpenApiDocument.load(ApiServer.class, "openapi.json");

    /** Decides, before any work, whether a request may proceed (load shedding, admission caps). */
    public interface Admission {
        /**
         * What admission decides on, once the request has arrived and been read.
         *
         * @param client who the request counts against (an API key's name, or {@code customer:<id>})
         * @param customers the customers whose pending orders are this client's share
         * @param priority the priority honoured for this client ({@code normal} unless it may set one)
         * @param arrivedNanos {@link System#nanoTime()} when the request had arrived, its time queued
         *     in the server before any handler counted from there
         * @param pendingCap the client's own share of pending confirmations (its key's {@code pending}),
         *     empty for the default share
         */
        record Request(String client, Set<String> customers, Priority priority, long deadlineEpochMillis,
                long arrivedNanos, OptionalInt pendingCap) {}

        /**
         * Whether every {@code priority} request is being refused now (its queue is full), and the
         * {@code Retry-After} to answer: checked before a request's body is read, so refusing costs
         * next to nothing. Empty by default.
         */
        default OptionalInt saturated(Priority priority) {
            return OptionalInt.empty();
        }

        /**
         * Whether {@code request} may proceed now: a ticket to release when it ends, or the refusal to
         * answer (nothing done). Every channel that takes orders asks this: the API, and the
         * {@code orders.commands} consumer.
         */
        Decision decide(Request request);

        /** A ticket to release when the request ends, or null when refused (the answer is written). */
        default Ticket admit(Context ctx, Request request) {
            Decision decision = decide(request);
            if (decision instanceof Refused refused) {
                ctx.header("Retry-After", Integer.toString(refused.retryAfterSeconds()));
                Problems.send(ctx, refused.status(), refused.type(), refused.title(), refused.detail(), Map.of());
                return null;
            }
            return ((Admitted) decision).ticket();
        }

        /** What admission decided: admitted with a ticket, or refused with the problem to answer. */
        sealed interface Decision permits Admitted, Refused {}

        /** Admitted: release {@code ticket} when the request ends. */
        record Admitted(Ticket ticket) implements Decision {}

        /**
         * Refused before any work, nothing stored: {@code type} is the problem's slug (e.g.
         * {@code overloaded}), {@code status} its HTTP status, {@code retryAfterSeconds} when to try again.
         */
        record Refused(int status, String type, String title, String detail, int retryAfterSeconds)
                implements Decision {}

        /** An admitted request's slot, released exactly once. */
        interface Ticket extends AutoCloseable {
            @Override
            void close();
        }

        Admission ALWAYS = request -> new Admitted(() -> {});
    }

    private final Javalin app;

    /**
     * An order submission of a priority admission refuses wholesale now is answered {@code 503}
     * before its body is read. {@code high} is never refused here: whether its client may use
     * it is known only from its key, so it goes the whole way.
     */
    private static OptionalInt refuseEarly(org.eclipse.jetty.server.Request request, Admission admission) {
        if (!"POST".equals(request.getMethod()) || !"/orders".equals(request.getHttpURI().getPath())) {
            return OptionalInt.empty();
        }
        Priority priority;
        try {
            priority = Priority.parse(request.getHeaders().get("X-Priority"));
        } catch (IllegalArgumentException e) {
            return OptionalInt.empty(); // the route answers 400
        }
        return priority == Priority.HIGH ? OptionalInt.empty() : admission.saturated(priority);
    }

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
            Clock clock, RequestBudget budget, java.util.function.Consumer<io.javalin.config.RoutesConfig> more) {
        return start(host, port, orders, store, readiness, registry, admission, clock, budget, more,
                EdgeLimits.defaults(), ClientAccess.open(Set.of()), ClientQuotas.unlimited());
    }

    /**
     * Starts the API with explicit limits for slow and large requests, client authentication and
     * per-client rate limits.
     */
    public static ApiServer start(String host, int port, OrderService orders, OrderStore store,
            Supplier<Map<String, Boolean>> readiness, PrometheusMeterRegistry registry, Admission admission,
            Clock clock, RequestBudget budget, java.util.function.Consumer<io.javalin.config.RoutesConfig> more,
            EdgeLimits limits, ClientAccess access, ClientQuotas quotas) {
        Consumer<String> refused = reason -> registry.counter(REFUSED, "reason", reason).increment();
        Routes routes = new Routes(orders, store, readiness, admission, clock, budget, access, quotas);
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.http.maxRequestSize = limits.maxBodyBytes();
            limits.apply(config);
            limits.listen(config, host, port);
            limits.gateBodies(config, refused, request -> refuseEarly(request, admission));
            QueuedThreadPool pool = new QueuedThreadPool(400, 16, 60_000);
            pool.setName("api");
            config.jetty.threadPool = pool;
            config.requestLogger.http(new SubmitMetrics(registry));
            config.routes.post("/orders", ServerSpans.traced(orders.tracing(), "POST", "/orders", routes::submit));
            config.routes.get("/orders/{id}", routes::order);
            config.routes.post("/orders/{id}/cancel", ServerSpans.traced(orders.tracing(), "POST",
                    "/orders/{id}/cancel", routes::cancel));
            config.routes.get("/orders", routes::list);
            config.routes.get("/health/live", ctx -> ctx.json(Map.of("status", "UP")));
            config.routes.get("/health/ready", routes::ready);
            config.routes.get("/metrics", ctx -> ctx.contentType("text/plain; version=0.0.4; charset=utf-8")
                    .result(registry.scrape()));
            CONTRACT.register(config.routes);
            more.accept(config.routes);
            config.routes.exception(InvalidRequest.class, (e, ctx) -> Problems.invalid(ctx, e));
            config.routes.exception(ApiRefusal.class, (e, ctx) -> {
                refused.accept(e.type());
                Problems.refused(ctx, e);
            });
            config.routes.exception(HttpResponseException.class, (e, ctx) -> Problems.send(ctx, e.getStatus(),
                    "http-" + e.getStatus(), e.getMessage(), e.getMessage(), Map.of()));
            // Jetty's refusal of what the client sent (its own status, 4xx): the client's doing, not ours.
            config.routes.exception(BadMessageException.class, (e, ctx) -> {
                log.warn("{} {} refused by the server: {} {}", ctx.method(), ctx.path(), e.getCode(), e.getReason());
                Problems.send(ctx, e.getCode(), "bad-message", "Request refused", String.valueOf(e.getReason()),
                        Map.of());
            });
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
        limits.applyIdleTimeout(app.jettyServer().server());
        return new ApiServer(app);
    }

    public int port() {
        return app.port();
    }

    /** The routes this listener registered, as {@code "GET /orders/{id}"}, sorted (for the contract test). */
    public java.util.List<String> routes() {
        return OpenApiDocument.routesOf(app);
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
        private final RequestBudget budget;
        private final ClientAccess access;
        private final ClientQuotas quotas;

        Routes(OrderService orders, OrderStore store, Supplier<Map<String, Boolean>> readiness, Admission admission,
                Clock clock, RequestBudget budget, ClientAccess access, ClientQuotas quotas) {
            this.budget = budget;
            this.access = access;
            this.quotas = quotas;
            this.orders = orders;
            this.store = store;
            this.readiness = readiness;
            this.admission = admission;
            this.clock = clock;
        }

        /**
         * Checks in order: who is asking (401), headers and the body (400), whether the key may act
         * for its customer (403), the client's rate (429), then admission (503, or 429 for the
         * client's share of pending orders). The body has already arrived whole (BodyGate), so
         * nothing here waits on the client.
         */
        void submit(Context ctx) {
            Optional<ApiKeys.Client> client = access.authenticate(ctx);
            long deadline = deadline(ctx.header("X-Deadline"));
            String key = idempotencyKey(ctx.header("Idempotency-Key"));
            Priority requested = priority(ctx.header("X-Priority"));
            OrderRequest request = OrderRequestParser.parse(ctx.bodyAsBytes());
            ClientAccess.requireCustomer(client, request.customerId());
            String clientName = ClientAccess.clientName(client, request.customerId());
            ApiKeys.Limits limits = client.map(ApiKeys.Client::limits).orElse(ApiKeys.Limits.DEFAULTS);
            long retryAfter = quotas.tryTake(clientName, limits);
            if (retryAfter > 0) {
                throw ApiRefusal.tooMany("rate-limited", "Too many orders from this client",
                        "this client is over its rate of order submissions; retry after " + retryAfter + " s",
                        retryAfter);
            }
            Priority priority = access.mayPrioritise(client, request.customerId()) ? requested : Priority.NORMAL;
            Admission.Request admitting = new Admission.Request(clientName,
                    ClientAccess.customers(client, request.customerId()), priority, deadline, arrivedNanos(ctx),
                    limits.pendingCap());
            try (Admission.Ticket ticket = admission.admit(ctx, admitting)) {
                if (ticket == null) {
                    return; // refused; admission wrote the answer
                }
                SubmitResult result = orders.submit(clientName, key, request, deadline);
                SubmitAnswers.Answer answer = SubmitAnswers.of(result.outcome());
                if (result.orderId() != null && answer.status() == 202) {
                    ctx.header("Location", "/orders/" + result.orderId());
                }
                if (result.replayed()) {
                    ctx.header("Idempotent-Replayed", "true");
                }
                if (answer.status() == 503) {
                    ctx.header("Retry-After", "1");
                }
                ctx.status(answer.status()).contentType(answer.accepted() ? "application/json" : Problems.CONTENT_TYPE)
                        .result(answer.body());
            }
        }

        private static long arrivedNanos(Context ctx) {
            Object arrived = ctx.attribute(BodyGate.ARRIVED_NANOS);
            return arrived instanceof Long nanos ? nanos : System.nanoTime();
        }

        /** The Idempotency-Key's rules, on every channel that takes one (orders.commands too). */
        static String idempotencyKey(String key) {
            if (key == null || key.isBlank()) {
                throw new InvalidRequest("Idempotency-Key", "header is required");
            }
            if (key.length() > MAX_KEY_LENGTH) {
                throw new InvalidRequest("Idempotency-Key", "must be at most " + MAX_KEY_LENGTH + " characters");
            }
            // Stored, logged and echoed in problems: visible ASCII only.
            if (!Limits.isApiKeyText(key)) {
                throw new InvalidRequest("Idempotency-Key", "must be visible ASCII characters (no spaces)");
            }
            return key;
        }

        private static Priority priority(String header) {
            try {
                return Priority.parse(header);
            } catch (IllegalArgumentException e) {
                throw new InvalidRequest("X-Priority", "must be high, normal or low");
            }
        }

        void order(Context ctx) {
            UUID id = orderId(ctx);
            Optional<ApiKeys.Client> client = access.authenticate(ctx);
            var view = store.find(id);
            // Another customer's order is answered as unknown: a 403 would confirm that the id exists.
            if (view.isEmpty() || client.isPresent() && !client.get().customers().contains(view.get().customerId())) {
                Problems.send(ctx, 404, "not-found", "Order not found", "no order " + id, Map.of());
                return;
            }
            ctx.contentType("application/json").result(Json.write(view.get()));
        }

        private static UUID orderId(Context ctx) {
            try {
                return UUID.fromString(ctx.pathParam("id"));
            } catch (IllegalArgumentException e) {
                throw new InvalidRequest("id", "must be an order id (UUID)");
            }
        }

        /**
         * {@code POST /orders/{id}/cancel}: who is asking (401), the id and headers (400), then the
         * cancel, seen as {@code GET /orders/{id}} sees orders (another customer's is 404). The answer
         * is chosen by the outcome's type alone (docs/design.md, "Cancelling an order").
         */
        void cancel(Context ctx) {
            Optional<ApiKeys.Client> client = access.authenticate(ctx);
            UUID id = orderId(ctx);
            String key = idempotencyKey(ctx.header("Idempotency-Key"));
            // The release run at once gets the API's request budget; a parked one finishes later.
            long deadline = clock.millis() + budget.defaultMillis();
            OrderService.Caller caller = new OrderService.Caller(client.map(ApiKeys.Client::name).orElse(null),
                    client.map(ApiKeys.Client::customers).orElse(null));
            CancelOutcome outcome = orders.cancel(caller, key, id, deadline);
            if (outcome instanceof CancelOutcome.Undoing undoing) {
                accepted(ctx, 202, id, undoing.status(), undoing.replayed());
            } else if (outcome instanceof CancelOutcome.Ended ended) {
                accepted(ctx, 200, id, ended.status(), ended.replayed());
            } else {
                CancelRefusals.Problem problem = CancelRefusals.of(outcome);
                if (problem.retryAfterSeconds() > 0) {
                    ctx.header("Retry-After", Integer.toString(problem.retryAfterSeconds()));
                }
                Problems.send(ctx, problem.status(), problem.type(), problem.title(), problem.detail(),
                        problem.namesOrder() ? Map.of("orderId", id) : Map.of());
            }
        }

        private static void accepted(Context ctx, int status, UUID id, OrderStatus now, boolean replayed) {
            if (replayed) {
                ctx.header("Idempotent-Replayed", "true");
            }
            Map<String, Object> body = new LinkedHashMap<>();
            body.put("orderId", id);
            body.put("status", now.name());
            ctx.status(status).contentType("application/json").result(Json.write(body));
        }

        void list(Context ctx) {
            Optional<ApiKeys.Client> client = access.authenticate(ctx);
            String statusParam = single(ctx, "status");
            OrderStatus status = null;
            if (statusParam != null) {
                try {
                    status = OrderStatus.valueOf(statusParam.toUpperCase(Locale.ROOT));
                } catch (IllegalArgumentException e) {
                    throw new InvalidRequest("status", "must be one of " + java.util.Arrays.toString(OrderStatus.values()));
                }
            }
            int limit = 50;
            String limitParam = single(ctx, "limit");
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
            Set<String> customers = client.map(ApiKeys.Client::customers).orElse(null);
            ctx.contentType("application/json").result(Json.write(store.list(status, limit, customers)));
        }

        /** A query parameter given at most once: two values would be read differently by different layers. */
        private static String single(Context ctx, String name) {
            if (ctx.queryParams(name).size() > 1) {
                throw new InvalidRequest(name, "may be given once");
            }
            return ctx.queryParam(name);
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
                return clock.millis() + budget.defaultMillis();
            }
            try {
                long value = Long.parseLong(header.trim());
                if (value <= 0) {
                    throw new NumberFormatException();
                }
                return budget.deadline(clock.millis(), value);
            } catch (NumberFormatException e) {
                throw new InvalidRequest("X-Deadline", "must be an absolute time in epoch milliseconds");
            }
        }
    }
}
