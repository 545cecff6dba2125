package org.sagas.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.sagas.orchestrator.http.OpenApiDocument;

/**
 * A stand-in payment provider with fault injection (its contract: openapi-payment.json), its ledger in
 * PostgreSQL schema {@code sandbox}, so it survives a restart. Thread-safe.
 *
 * <ul>
 *   <li>{@code POST /charges}, header {@code Idempotency-Key}, body
 *       {@code {"orderId","amountCents","currency"}}: answers the ledger row
 *       {@code {"idempotencyKey","orderId","amountCents","currency","status"}} with status
 *       {@code CAPTURED} or {@code DECLINED}. The same key answers the stored row, never charging
 *       twice, even when the duplicates are concurrent.</li>
 *   <li>{@code GET /charges/{key}}: the row, or 404.</li>
 *   <li>{@code POST /refunds}, header {@code Idempotency-Key}, body {@code {"chargeKey"}}: a
 *       {@code CAPTURED} charge becomes {@code REFUNDED}, once; a repeat, or a refund of a declined
 *       charge, changes nothing and answers the row as it is. An unknown charge key: 404.</li>
 *   <li>{@code GET /charges?orderId=X}: the ledger of an order (without it: every charge).</li>
 *   <li>{@code GET /charges?since=<cursor>&limit=N}: the ledger as a change feed, a page of
 *       {@link FeedPage} (each charge's latest state, oldest change first); {@code since} empty for
 *       the start, {@code limit} 1-1000 (100). Both listings only with the ledger token
 *       ({@link SandboxAccess}), else 401.</li>
 *   <li>Only when the sandbox runs with its controls on (else 404): {@code PUT /_faults} (fields
 *       left out keep their value), {@code GET /_faults}, and {@code GET /_traceparents/{key}}: the
 *       {@code traceparent} header the charge under that key arrived with (the last 10 000 kept),
 *       or 404: how a test or a game day sees that the trace reached the provider.</li>
 * </ul>
 *
 * <p>Faults apply to charge, refund and look-up. {@code down}: 503 at once. {@code latencyMs}: a
 * wait before the work and the answer. {@code declineRate}: a new charge is recorded DECLINED at
 * random. {@code timeoutAfterCharge}: a request that creates a charge records it, then holds its
 * answer for 30 s (or until the client goes away) and answers 504 — the provider charged but the
 * answer was lost. A retry with the same key, or a look-up, answers the stored row at once.
 */
public final class PaymentSandbox implements AutoCloseable {
    static final Duration HELD_ANSWER = Duration.ofSeconds(30);

    private final PaymentLedger ledger;
    private final AtomicReference<PaymentFaults> faults = new AtomicReference<>(PaymentFaults.NONE);
    private final SandboxServer server;
    /** This service's contract, {@code GET /openapi.json}. */
    private static final OpenApiDocument CONTRACT = OpenApiDocument.load(PaymentSandbox.class, "openapi-payment.json");
    /** The traceparent each charge key arrived with, the last few thousand (traces are checked, not kept). */
    private final Map<String, String> traceparents = java.util.Collections.synchronizedMap(
            new java.util.LinkedHashMap<>(64, 0.75f, false) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, String> eldest) {
                    return size() > 10_000;
                }
            });

    private final SandboxAccess access;

    private PaymentSandbox(DataSource dataSource, SandboxAccess access) {
        this.ledger = new PaymentLedger(new Db(dataSource));
        this.access = Objects.requireNonNull(access, "access");
        this.server = new SandboxServer("payment-sandbox", this::routes);
    }

    /**
     * Starts the service on {@code host:port} (0: any free port, see {@link #port()}). The schema
     * must have been migrated; the data source stays the caller's. {@code access} says whether the
     * fault and trace routes exist and which token opens the ledger.
     */
    public static PaymentSandbox start(DataSource dataSource, String host, int port, SandboxAccess access) {
        PaymentSandbox sandbox = new PaymentSandbox(dataSource, access);
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

    /** The faults injected now. */
    public PaymentFaults faults() {
        return faults.get();
    }

    /** Replaces the injected faults; requests arriving from now on see them. */
    public void setFaults(PaymentFaults newFaults) {
        faults.set(Objects.requireNonNull(newFaults, "faults"));
    }

    /** Stops listening; answers still waiting or held get 503. */
    @Override
    public void close() {
        server.close();
    }

    private void routes(RoutesConfig routes) {
        routes.post("/charges", this::charge);
        routes.get("/charges/{key}", this::lookup);
        routes.get("/charges", access.ledger(ctx -> SandboxServer.json(ctx, 200, FeedPage.asked(ctx)
                ? ledger.changes(FeedPage.after(ctx)) : ledger.charges(ctx.queryParam("orderId")))));
        routes.post("/refunds", this::refund);
        if (access.controls()) {
            routes.put("/_faults", this::putFaults);
            routes.get("/_faults", ctx -> SandboxServer.json(ctx, 200, faults.get()));
            routes.get("/_traceparents/{key}", ctx -> SandboxServer.json(ctx, 200, Map.of("key",
                    ctx.pathParam("key"), "traceparent", Optional.ofNullable(traceparents.get(ctx.pathParam("key")))
                            .orElseThrow(() -> Problem.notFound("no traceparent for charge key "
                                    + ctx.pathParam("key"))))));
        }
        CONTRACT.register(routes);
    }

    private void charge(Context ctx) {
        PaymentFaults now = faults.get();
        refuseWhenDown(now);
        String key = Requests.idempotencyKey(ctx);
        ChargeRequest request = ChargeRequest.parse(Json.object(ctx.body()));
        String traceparent = ctx.header("traceparent");
        if (traceparent != null) {
            traceparents.put(key, traceparent);
        }
        ChargeStatus outcome = ThreadLocalRandom.current().nextDouble() < now.declineRate()
                ? ChargeStatus.DECLINED : ChargeStatus.CAPTURED;
        CompletableFuture<ChargeRecord> answer = server
                .thenOnDatabase(server.after(now.latencyMs()), () -> ledger.charge(key, request, outcome))
                .thenCompose(charged -> charged.created() && now.timeoutAfterCharge()
                        ? loseAnswer(key)
                        : CompletableFuture.completedFuture(charged.record()));
        SandboxServer.answer(ctx, answer);
    }

    /** Holds the answer of a charge that was recorded, then gives up on it. */
    private CompletableFuture<ChargeRecord> loseAnswer(String key) {
        return server.after(HELD_ANSWER.toMillis()).thenApply(ignored -> {
            throw Problem.answerLost("charge " + key + " was recorded but its answer was lost (injected fault)");
        });
    }

    private void lookup(Context ctx) {
        PaymentFaults now = faults.get();
        refuseWhenDown(now);
        String key = Json.text(ctx.pathParam("key"), "key", Requests.MAX_KEY_LENGTH);
        answerAfterLatency(ctx, now, () -> ledger.find(key)
                .orElseThrow(() -> Problem.notFound("no charge under key " + key)));
    }

    private void refund(Context ctx) {
        PaymentFaults now = faults.get();
        refuseWhenDown(now);
        String refundKey = Requests.idempotencyKey(ctx);
        JsonNode body = Json.object(ctx.body());
        String chargeKey = Json.text(Json.required(body, "chargeKey", "chargeKey"), "chargeKey",
                Requests.MAX_KEY_LENGTH);
        answerAfterLatency(ctx, now, () -> ledger.refund(refundKey, chargeKey)
                .orElseThrow(() -> Problem.notFound("no charge under key " + chargeKey)));
    }

    private void putFaults(Context ctx) {
        JsonNode patch = Json.object(ctx.body());
        SandboxServer.json(ctx, 200, faults.updateAndGet(current -> merge(current, patch)));
    }

    private <T> void answerAfterLatency(Context ctx, PaymentFaults now, Supplier<T> work) {
        SandboxServer.answer(ctx, server.thenOnDatabase(server.after(now.latencyMs()), work));
    }

    private static void refuseWhenDown(PaymentFaults now) {
        if (now.down()) {
            throw Problem.unavailable("payment provider is down (injected fault)");
        }
    }

    private static PaymentFaults merge(PaymentFaults current, JsonNode patch) {
        Json.onlyFields(patch, "latencyMs", "declineRate", "down", "timeoutAfterCharge");
        return new PaymentFaults(
                Json.optional(patch, "latencyMs").map(n -> Json.integer(n, "latencyMs", 0, InventoryFaults.MAX_LATENCY_MS))
                        .orElse(current.latencyMs()),
                Json.optional(patch, "declineRate").map(n -> Json.number(n, "declineRate", 0.0, 1.0))
                        .orElse(current.declineRate()),
                Json.optional(patch, "down").map(n -> Json.bool(n, "down")).orElse(current.down()),
                Json.optional(patch, "timeoutAfterCharge").map(n -> Json.bool(n, "timeoutAfterCharge"))
                        .orElse(current.timeoutAfterCharge()));
    }
}
