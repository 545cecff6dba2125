package org.sagas.sandbox;

import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import io.javalin.http.HttpResponseException;
import io.javalin.http.HttpStatus;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.sagas.orchestrator.http.EdgeLimits;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP plumbing both sandboxes share: a Javalin server whose slow answers hold no thread,
 * errors as {@code application/problem+json}, and the pool that talks to PostgreSQL.
 *
 * <p>Operations subject to injected faults answer asynchronously: the wait is a timer
 * ({@link Delays}), then the work runs on a small database pool, then the answer is written. So
 * a 4 s latency at 100 requests/s keeps ~400 requests waiting without 400 threads. Thread-safe.
 */
final class SandboxServer implements AutoCloseable {
    static final String PROBLEM_JSON = "application/problem+json";
    private static final Logger log = LoggerFactory.getLogger(SandboxServer.class);
    private static final int HTTP_THREADS = 200;
    private static final int DATABASE_THREADS = 16;
    /** Longer than the longest injected latency (120 s) plus a held answer (30 s). */
    private static final long IDLE_TIMEOUT_MILLIS = 180_000;
    /**
     * The sandboxes answer slowly on purpose, so their idle timeout is long; a request body must
     * still arrive at 1 KiB/s at least, and oversized headers get problem+json, as on the API.
     */
    private static final EdgeLimits LIMITS = new EdgeLimits(java.time.Duration.ofMillis(IDLE_TIMEOUT_MILLIS), 1024,
            java.time.Duration.ofSeconds(1), 64, 64 * 1024, EdgeLimits.DEFAULT_DRAIN_BYTES);

    private final String name;
    private final Delays delays;
    private final ExecutorService database;
    private final Javalin app;

    /** A server whose routes {@code routes} declares; {@link #start} makes it listen. */
    SandboxServer(String name, Consumer<RoutesConfig> routes) {
        this.name = name;
        this.delays = new Delays(name);
        this.database = Executors.newFixedThreadPool(DATABASE_THREADS, threadFactory(name + "-db"));
        QueuedThreadPool http = new QueuedThreadPool(HTTP_THREADS, 8);
        http.setName(name + "-http");
        this.app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.startup.showOldJavalinVersionWarning = false;
            config.jetty.threadPool = http;
            config.http.asyncTimeout = IDLE_TIMEOUT_MILLIS;
            LIMITS.apply(config);
            config.routes.exception(Problem.class, (problem, ctx) -> problem(ctx, problem));
            config.routes.exception(HttpResponseException.class, (e, ctx) -> problem(ctx,
                    Problem.of(e.getStatus(), HttpStatus.forStatus(e.getStatus()).getMessage(), e.getMessage())));
            config.routes.exception(Exception.class, (e, ctx) -> problem(ctx, unexpected(e)));
            routes.accept(config.routes);
        });
    }

    /** Listens on {@code host:port} (0: any free port); on failure, releases what it holds. */
    void start(String host, int port) {
        try {
            app.start(host, port);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
        LIMITS.applyIdleTimeout(app.jettyServer().server());
        log.info("{} listening on http://{}:{}", name, host, port());
    }

    int port() {
        return app.port();
    }

    /** The routes registered, as {@code "GET /stock/{sku}"}, sorted (for the OpenAPI contract test). */
    java.util.List<String> routes() {
        return org.sagas.orchestrator.http.OpenApiDocument.routesOf(app);
    }

    /** A future completed after {@code millis}, holding no thread meanwhile. */
    CompletableFuture<Void> after(long millis) {
        return delays.after(millis);
    }

    /** Runs {@code work} on the database pool once {@code start} completes. */
    <T> CompletableFuture<T> thenOnDatabase(CompletableFuture<Void> start, Supplier<T> work) {
        return start.thenApplyAsync(ignored -> work.get(), database);
    }

    /** Answers 200 with {@code outcome}'s value as JSON, or with the problem it failed with. */
    static void answer(Context ctx, CompletableFuture<?> outcome) {
        ctx.future(() -> outcome.handle((value, error) -> {
            if (error == null) {
                json(ctx, 200, value);
            } else {
                problem(ctx, unexpected(error));
            }
            return null;
        }));
    }

    static void json(Context ctx, int status, Object body) {
        ctx.status(status).contentType("application/json").result(Json.write(body));
    }

    static void problem(Context ctx, Problem problem) {
        ctx.status(problem.status()).contentType(PROBLEM_JSON).result(Json.write(problem.body()));
    }

    private static Problem unexpected(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof Problem problem) {
            return problem;
        }
        if (cause instanceof RejectedExecutionException) {
            return Problem.unavailable("the sandbox is shutting down");
        }
        log.error("request failed", cause);
        return Problem.internal(cause.getClass().getSimpleName() + ": " + cause.getMessage());
    }

    /** Fails every held or waiting answer with 503, then stops the server and its pools. */
    @Override
    public void close() {
        delays.close();
        app.stop();
        database.shutdown();
        try {
            if (!database.awaitTermination(10, TimeUnit.SECONDS)) {
                log.warn("{}: database work still running after 10 s", name);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static ThreadFactory threadFactory(String prefix) {
        AtomicInteger sequence = new AtomicInteger();
        return runnable -> {
            Thread thread = new Thread(runnable, prefix + "-" + sequence.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        };
    }
}
