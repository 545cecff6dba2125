package org.sagas.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;
import javax.sql.DataSource;
import org.sagas.orchestrator.http.OpenApiDocument;

/**
 * A stand-in inventory service with fault injection (its contract: openapi-inventory.json), its state in
 * PostgreSQL schema {@code sandbox}, so it survives a restart. Thread-safe.
 *
 * <ul>
 *   <li>{@code PUT /stock/{sku}} {@code {"available":n}} sets what can still be reserved (controls
 *       only, below); {@code GET /stock/{sku}} answers {@code {"sku","available","reserved","stocked"}}
 *       ({@code stocked}: the last PUT plus what was held then, see {@link StockLevel}).</li>
 *   <li>{@code POST /reservations}, header {@code Idempotency-Key}, optional {@code X-Deadline},
 *       body {@code {"orderId","lines":[{"sku","quantity"}]}}: reserves every line or none and
 *       answers the reservation {@code {"key","orderId","status","lines"}}. The same key answers
 *       what the key holds now, with no second effect: {@code RESERVED}, {@code OUT_OF_STOCK}, or
 *       {@code RELEASED} when the key was released, or when its release arrived first (a
 *       tombstone): such a late reservation holds nothing.</li>
 *   <li>{@code POST /reservations/{key}/release}, header {@code Idempotency-Key} (the release's own),
 *       optional {@code X-Deadline}, body {@code {"orderId"}}: returns the stock once; an unknown
 *       key leaves a {@code RELEASED} tombstone. Answers the reservation.</li>
 *   <li>{@code GET /reservations/{key}}: the reservation under a key, or 404.</li>
 *   <li>{@code GET /reservations?orderId=X} (without it: all), and
 *       {@code GET /reservations?since=<cursor>&limit=N}: the reservations as a change feed, a page
 *       of {@link FeedPage} (each reservation's latest state, oldest change first). Both only with
 *       the ledger token ({@link SandboxAccess}), else 401.</li>
 *   <li>{@code PUT /_faults} (fields left out keep their value), {@code GET /_faults}, and
 *       {@code PUT /stock/{sku}}: only when the sandbox runs with its controls on; else 404.</li>
 * </ul>
 *
 * <p>Faults apply to reserve and release only. {@code down}: 503 at once. {@code errorRate}: 503
 * at random, without effect. {@code latencyMs}: a wait before answering. A request whose
 * {@code X-Deadline} has passed on arrival, or would pass during the injected wait, is answered
 * 504 at the deadline and has no effect: its caller has given up. Waits hold no thread.
 */
public final class InventorySandbox implements AutoCloseable {
    /** Headroom below the integer column's limit for releases that add stock back. */
    static final int MAX_AVAILABLE = 1_000_000_000;

    private final InventoryStore store;
    private final AtomicReference<InventoryFaults> faults = new AtomicReference<>(InventoryFaults.NONE);
    private final SandboxServer server;
    /** This service's contract, {@code GET /openapi.json}. */
    private static final OpenApiDocument CONTRACT = OpenApiDocument.load(InventorySandbox.class, "openapi-inventory.json");

    private final SandboxAccess access;

    private InventorySandbox(DataSource dataSource, SandboxAccess access) {
        this.store = new InventoryStore(new Db(dataSource));
        this.access = Objects.requireNonNull(access, "access");
        this.server = new SandboxServer("inventory-sandbox", this::routes);
    }

    /**
     * Starts the service on {@code host:port} (0: any free port, see {@link #port()}). The schema
     * must have been migrated; the data source stays the caller's. {@code access} says whether the
     * stock and fault routes exist and which token opens the ledgers.
     */
    public static InventorySandbox start(DataSource dataSource, String host, int port, SandboxAccess access) {
        InventorySandbox sandbox = new InventorySandbox(dataSource, access);
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
    public InventoryFaults faults() {
        return faults.get();
    }

    /** Replaces the injected faults; requests arriving from now on see them. */
    public void setFaults(InventoryFaults newFaults) {
        faults.set(Objects.requireNonNull(newFaults, "faults"));
    }

    /** Stops listening; answers still waiting on an injected latency get 503. */
    @Override
    public void close() {
        server.close();
    }

    private void routes(RoutesConfig routes) {
        routes.get("/stock/{sku}", ctx -> SandboxServer.json(ctx, 200, store.stock(sku(ctx))));
        routes.post("/reservations", this::reserve);
        routes.post("/reservations/{key}/release", this::release);
        routes.get("/reservations", access.ledger(ctx -> SandboxServer.json(ctx, 200, FeedPage.asked(ctx)
                ? store.changes(FeedPage.after(ctx)) : store.reservations(ctx.queryParam("orderId")))));
        // A look-up by key is the participant protocol (the orchestrator's client asks it), not a listing.
        routes.get("/reservations/{key}", ctx -> SandboxServer.json(ctx, 200, store.reservation(ctx.pathParam("key"))
                .orElseThrow(() -> Problem.notFound("no reservation under key " + ctx.pathParam("key")))));
        if (access.controls()) {
            routes.put("/stock/{sku}", this::putStock);
            routes.put("/_faults", this::putFaults);
            routes.get("/_faults", ctx -> SandboxServer.json(ctx, 200, faults.get()));
        }
        CONTRACT.register(routes);
    }

    private void putStock(Context ctx) {
        String sku = sku(ctx);
        JsonNode body = Json.object(ctx.body());
        int available = (int) Json.integer(Json.required(body, "available", "available"), "available", 0,
                MAX_AVAILABLE);
        SandboxServer.json(ctx, 200, store.setAvailable(sku, available));
    }

    private void putFaults(Context ctx) {
        JsonNode patch = Json.object(ctx.body());
        SandboxServer.json(ctx, 200, faults.updateAndGet(current -> merge(current, patch)));
    }

    private void reserve(Context ctx) {
        InventoryFaults now = faults.get();
        refuseWhenDown(now);
        String key = Requests.idempotencyKey(ctx);
        OptionalLong deadline = Requests.deadline(ctx);
        ReserveRequest request = ReserveRequest.parse(Json.object(ctx.body()));
        answerUnderFaults(ctx, now, deadline, () -> store.reserve(key, request));
    }

    private void release(Context ctx) {
        InventoryFaults now = faults.get();
        refuseWhenDown(now);
        String releaseKey = Requests.idempotencyKey(ctx);
        String reservationKey = Json.text(ctx.pathParam("key"), "key", Requests.MAX_KEY_LENGTH);
        OptionalLong deadline = Requests.deadline(ctx);
        String orderId = ReserveRequest.orderId(Json.object(ctx.body()));
        answerUnderFaults(ctx, now, deadline, () -> store.release(releaseKey, reservationKey, orderId));
    }

    private static void refuseWhenDown(InventoryFaults now) {
        if (now.down()) {
            throw Problem.unavailable("inventory is down (injected fault)");
        }
    }

    /** Waits the injected latency (or until the deadline), then fails at random or does the work. */
    private <T> void answerUnderFaults(Context ctx, InventoryFaults now, OptionalLong deadline, Supplier<T> work) {
        Admission admission = Admission.decide(System.currentTimeMillis(), now.latencyMs(), deadline);
        boolean fail = ThreadLocalRandom.current().nextDouble() < now.errorRate();
        CompletableFuture<Void> admitted = server.after(admission.waitMillis()).thenRun(() -> {
            if (!admission.proceed()) {
                throw Problem.deadlineExceeded("X-Deadline passed before the work could be done; nothing changed");
            }
            if (fail) {
                throw Problem.unavailable("injected error (errorRate " + now.errorRate() + ")");
            }
        });
        SandboxServer.answer(ctx, server.thenOnDatabase(admitted, work));
    }

    private static String sku(Context ctx) {
        return Json.text(ctx.pathParam("sku"), "sku", ReserveRequest.MAX_SKU_LENGTH);
    }

    private static InventoryFaults merge(InventoryFaults current, JsonNode patch) {
        Json.onlyFields(patch, "latencyMs", "errorRate", "down");
        return new InventoryFaults(
                Json.optional(patch, "latencyMs").map(n -> Json.integer(n, "latencyMs", 0, InventoryFaults.MAX_LATENCY_MS))
                        .orElse(current.latencyMs()),
                Json.optional(patch, "errorRate").map(n -> Json.number(n, "errorRate", 0.0, 1.0))
                        .orElse(current.errorRate()),
                Json.optional(patch, "down").map(n -> Json.bool(n, "down")).orElse(current.down()));
    }
}
