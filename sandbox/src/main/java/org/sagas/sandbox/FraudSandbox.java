package org.sagas.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import org.sagas.orchestrator.http.OpenApiDocument;

/**
 * A stand-in fraud screening service with fault injection (its contract: openapi-fraud.json),
 * called by version 2 of the orders saga. It keeps no state: its verdict follows from the order
 * and its {@link FraudRules}, so a key asked again is answered the same. Thread-safe.
 *
 * <ul>
 *   <li>{@code POST /screenings}, header {@code Idempotency-Key}, optional {@code X-Deadline}, body
 *       {@code {"orderId","customerId","totalCents","currency"}}: answers
 *       {@code {"key","orderId","verdict","rule"}}, {@code verdict} {@code CLEARED} or
 *       {@code REFUSED} ({@code rule} names why: {@code amount_over_limit}, {@code flagged_customer}).</li>
 *   <li>{@code PUT /_faults} (fields left out keep their value), {@code GET /_faults}: only when the
 *       sandbox runs with its controls on; else 404.</li>
 * </ul>
 *
 * <p>Faults apply to screenings, as the inventory sandbox's do to reservations: {@code down}: 503
 * at once; {@code errorRate}: 503 at random; {@code latencyMs}: a wait before answering; a
 * screening whose {@code X-Deadline} passes first is answered 504 at the deadline.
 */
public final class FraudSandbox implements AutoCloseable {
    private static final OpenApiDocument CONTRACT = OpenApiDocument.load(FraudSandbox.class, "openapi-fraud.json");

    private final FraudRules rules;
    private final SandboxAccess access;
    private final AtomicReference<FraudFaults> faults = new AtomicReference<>(FraudFaults.NONE);
    private final SandboxServer server;

    private FraudSandbox(FraudRules rules, SandboxAccess access) {
        this.rules = Objects.requireNonNull(rules, "rules");
        this.access = Objects.requireNonNull(access, "access");
        this.server = new SandboxServer("fraud-sandbox", this::routes);
    }

    /** Starts the service on {@code host:port} (0: any free port, see {@link #port()}). */
    public static FraudSandbox start(FraudRules rules, String host, int port, SandboxAccess access) {
        FraudSandbox sandbox = new FraudSandbox(rules, access);
        sandbox.server.start(host, port);
        return sandbox;
    }

    /** The port the service listens on. */
    public int port() {
        return server.port();
    }

    /** The routes it registered, sorted (for the OpenAPI contract test). */
    public java.util.List<String> routes() {
        return server.routes();
    }

    /** Stops listening; answers still waiting on an injected latency get 503. */
    @Override
    public void close() {
        server.close();
    }

    private void routes(RoutesConfig routes) {
        routes.post("/screenings", this::screen);
        if (access.controls()) {
            routes.put("/_faults", this::putFaults);
            routes.get("/_faults", ctx -> SandboxServer.json(ctx, 200, faults.get()));
        }
        CONTRACT.register(routes);
    }

    private void screen(Context ctx) {
        FraudFaults now = faults.get();
        if (now.down()) {
            throw Problem.unavailable("the fraud service is down (injected fault)");
        }
        String key = Requests.idempotencyKey(ctx);
        OptionalLong deadline = Requests.deadline(ctx);
        JsonNode body = Json.object(ctx.body());
        Json.onlyFields(body, "orderId", "customerId", "totalCents", "currency");
        String orderId = ReserveRequest.orderId(body);
        String customerId = Json.text(Json.required(body, "customerId", "customerId"), "customerId",
                org.sagas.orchestrator.ordering.Limits.MAX_CUSTOMER_ID);
        long totalCents = Json.integer(Json.required(body, "totalCents", "totalCents"), "totalCents", 0,
                Long.MAX_VALUE);
        Json.text(Json.required(body, "currency", "currency"), "currency", 3);
        Admission admission = Admission.decide(System.currentTimeMillis(), now.latencyMs(), deadline);
        boolean fail = ThreadLocalRandom.current().nextDouble() < now.errorRate();
        CompletableFuture<Map<String, Object>> answer = server.after(admission.waitMillis()).thenApply(ignored -> {
            if (!admission.proceed()) {
                throw Problem.deadlineExceeded("X-Deadline passed before the screening could be made");
            }
            if (fail) {
                throw Problem.unavailable("injected error (errorRate " + now.errorRate() + ")");
            }
            String rule = rules.refusal(customerId, totalCents);
            Map<String, Object> verdict = new LinkedHashMap<>();
            verdict.put("key", key);
            verdict.put("orderId", orderId);
            verdict.put("verdict", rule == null ? "CLEARED" : "REFUSED");
            verdict.put("rule", rule);
            return verdict;
        });
        SandboxServer.answer(ctx, answer);
    }

    private void putFaults(Context ctx) {
        JsonNode patch = Json.object(ctx.body());
        SandboxServer.json(ctx, 200, faults.updateAndGet(current -> merge(current, patch)));
    }

    private static FraudFaults merge(FraudFaults current, JsonNode patch) {
        Json.onlyFields(patch, "latencyMs", "errorRate", "down");
        return new FraudFaults(
                Json.optional(patch, "latencyMs").map(n -> Json.integer(n, "latencyMs", 0,
                        InventoryFaults.MAX_LATENCY_MS)).orElse(current.latencyMs()),
                Json.optional(patch, "errorRate").map(n -> Json.number(n, "errorRate", 0.0, 1.0))
                        .orElse(current.errorRate()),
                Json.optional(patch, "down").map(n -> Json.bool(n, "down")).orElse(current.down()));
    }
}
