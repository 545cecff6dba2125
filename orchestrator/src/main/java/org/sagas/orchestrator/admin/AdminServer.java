package org.sagas.orchestrator.admin;

import io.javalin.Javalin;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.EdgeLimits;
import org.sagas.orchestrator.http.InvalidRequest;
import org.sagas.orchestrator.http.OpenApiDocument;
import org.sagas.orchestrator.http.Problems;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.saga.SagaEngine;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator API (docs/operations-admin.md) on a listener of its own, apart from the public API:
 * {@code /admin/…} for tools and the CLI, {@code /console/} for people. Starts the batch runner
 * with it and stops it on {@link #close()}. Thread-safe.
 */
public final class AdminServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminServer.class);
    /** The operator API's contract, {@code GET /openapi.json}: public, like the public API's. */
    private static final OpenApiDocument CONTRACT = OpenApiDocument.load(AdminServer.class, "openapi.json");

    /**
     * How the operator API runs.
     *
     * @param port 0 for any free port
     * @param readOnly refuse every write (403)
     * @param participantTimeout how long an inspection waits for each participant's view
     * @param stepBudget how long a step an operator retries may take when it runs at once
     * @param batchLease how long a batch stays with a process that stopped renewing it
     * @param edge what the listener tolerates from slow or oversized clients, as on the public API
     * @param sessions how the console's sessions live
     * @param failures how many wrong tokens one address may present before it is answered 429
     */
    public record Config(String host, int port, AdminTokens tokens, boolean readOnly, Duration participantTimeout,
            Duration stepBudget, Duration batchLease, EdgeLimits edge, SessionPolicy sessions,
            FailureLimit failures) {
        public Config {
            Objects.requireNonNull(failures, "failures");
            Objects.requireNonNull(sessions, "sessions");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(tokens, "tokens");
            Objects.requireNonNull(edge, "edge");
            if (tokens.isEmpty()) {
                throw new IllegalArgumentException("the operator API needs at least one token");
            }
        }
    }

    /**
     * What the operator API works on: the product's own parts and the ports to the rest.
     *
     * @param overview the overview's figures from outside the orchestrator ({@link OverviewSources#NONE}: none)
     * @param registry where the listener's refusals ({@value #REFUSED}) and the console's sessions are counted
     * @param fleet the saga definition versions of the running processes ({@code GET /admin/definitions})
     */
    public record Parts(Jdbi jdbi, SagaEngine engine, OrderStore orders, ParticipantViews participants,
            OutboxDeadLetterPort outboxDeadLetters, KafkaDeadLetters kafkaDeadLetters, Clock clock,
            ReconciliationFindings findings, OverviewSources overview, MeterRegistry registry,
            org.sagas.orchestrator.saga.SagaFleet fleet) {}

    /** Requests the operator listener refused before any action, by reason: {@code saga_admin_refused_total{reason}}. */
    public static final String REFUSED = "saga.admin.refused";

    private final Javalin app;
    private final BatchRunner batchRunner;
    private final ParticipantSnapshots snapshots;

    private AdminServer(Javalin app, BatchRunner batchRunner, ParticipantSnapshots snapshots) {
        this.app = app;
        this.batchRunner = batchRunner;
        this.snapshots = snapshots;
    }

    public static AdminServer start(Config config, Parts parts) {
        AuditLog audit = new AuditLog(parts.jdbi());
        Consumer<String> refused = reason -> parts.registry().counter(REFUSED, "reason", reason).increment();
        ConsoleSessions sessions = new ConsoleSessions(config.sessions(), parts.clock(), parts.registry());
        AuthThrottle throttle = new AuthThrottle(config.failures(), refused, System::nanoTime);
        Guard guard = new Guard(config.tokens(), sessions, throttle, config.readOnly(), audit);
        SagaActions actions = new SagaActions(parts.engine(), parts.jdbi(), audit, config.stepBudget().toMillis());
        ParticipantSnapshots snapshots = new ParticipantSnapshots(parts.participants(), config.participantTimeout(),
                parts.clock());
        BatchRunner runner = new BatchRunner(new BatchStore(parts.jdbi()), parts.orders(), actions, audit,
                parts.clock(), config.batchLease());
        Batches batches = new Batches(parts.jdbi(), new BatchStore(parts.jdbi()), parts.orders(), audit, runner,
                parts.clock(), actions);
        SagaRoutes sagas = new SagaRoutes(parts.orders(), new SagaInspector(parts.jdbi(), parts.orders(), audit,
                snapshots), actions, guard);
        Console console = new Console(config.tokens(), sessions, throttle);
        EdgeLimits edge = config.edge();
        Javalin app = Javalin.create(c -> {
            c.startup.showJavalinBanner = false;
            // The public API's limits, from the same code (docs/security.md): a slow sender holds a
            // buffer and a slot, never one of the few threads.
            c.http.maxRequestSize = edge.maxBodyBytes();
            edge.apply(c);
            edge.listen(c, config.host(), config.port());
            edge.gateBodies(c, refused);
            QueuedThreadPool pool = new QueuedThreadPool(32, 2, 60_000);
            pool.setName("admin");
            c.jetty.threadPool = pool;
            c.routes.before(ctx -> {
                if (!Console.isPublic(ctx) && !ctx.path().equals(OpenApiDocument.PATH)) {
                    guard.authenticate(ctx);
                }
            });
            sagas.register(c.routes);
            new BatchRoutes(batches, guard).register(c.routes);
            new DeadLetterRoutes(parts.outboxDeadLetters(), parts.kafkaDeadLetters(), audit, guard)
                    .register(c.routes);
            new AuditRoutes(audit, guard).register(c.routes);
            new DefinitionRoutes(parts.fleet()).register(c.routes);
            new ReconciliationRoutes(parts.findings()).register(c.routes);
            new OverviewRoutes(parts.orders(), parts.engine(), parts.overview(), parts.kafkaDeadLetters(),
                    parts.clock()).register(c.routes);
            console.register(c.routes);
            CONTRACT.register(c.routes);
            c.routes.exception(AdminRefusal.class, (e, ctx) -> Problems.send(ctx, e.status(), e.type(), e.title(),
                    e.getMessage(), e.extra()));
            c.routes.exception(InvalidRequest.class, (e, ctx) -> Problems.invalid(ctx, e));
            c.routes.exception(HttpResponseException.class, (e, ctx) -> Problems.send(ctx, e.getStatus(),
                    "http-" + e.getStatus(), e.getMessage(), e.getMessage(), Map.of()));
            // A saga of a version this build does not have (a rolling deploy): another process acts on it.
            c.routes.exception(org.sagas.orchestrator.saga.UnknownSagaVersion.class, (e, ctx) -> {
                log.warn("admin {} {}: {}", ctx.method(), ctx.path(), e.getMessage());
                Problems.send(ctx, 409, "unknown-version", "Saga version not in this build", e.getMessage()
                        + "; a process of a build that has it can show and act on it", Map.of());
            });
            c.routes.exception(Exception.class, (e, ctx) -> {
                log.error("admin {} {} failed: {}", ctx.method(), ctx.path(), e.toString(), e);
                Problems.send(ctx, 500, "internal", "Internal error", "the request failed; see the server log",
                        Map.of());
            });
            c.routes.error(404, ctx -> {
                if (ctx.result() == null) {
                    Problems.send(ctx, 404, "not-found", "Not found", ctx.path() + " is not here", Map.of());
                }
            });
        }).start(config.host(), config.port());
        edge.applyIdleTimeout(app.jettyServer().server());
        runner.start();
        log.info("operator API on {}:{} ({} token(s){})", config.host(), app.port(), config.tokens().size(),
                config.readOnly() ? ", read-only" : "");
        return new AdminServer(app, runner, snapshots);
    }

    public int port() {
        return app.port();
    }

    /** The routes this listener registered, as {@code "GET /admin/sagas"}, sorted (for the contract test). */
    public java.util.List<String> routes() {
        return OpenApiDocument.routesOf(app);
    }

    static void json(Context ctx, int status, Object body) {
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }

    @Override
    public void close() {
        batchRunner.close();
        app.stop();
        snapshots.close();
    }
}
