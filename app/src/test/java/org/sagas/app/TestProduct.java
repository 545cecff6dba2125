package org.sagas.app;

import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import org.sagas.orchestrator.Json;
import org.sagas.testkit.TestInfra;

/**
 * The whole product (every role, sandbox included) running in this JVM on the test class's real
 * PostgreSQL database and the shared real Kafka broker, driven over HTTP like a client would.
 */
final class TestProduct implements AutoCloseable {
    /**
     * Each (re)start warms up before it turns ready (ADR 0016). A few dry-run orders do in tests, where
     * two cores run the product beside other test JVMs; WarmUpIT and LauncherIT test the warm-up itself.
     */
    static final Map.Entry<String, String> FEW_WARM_UP_ORDERS = Map.entry("SAGA_WARM_UP_ORDERS", "20");
    /** SAGA_ADMIN_TOKEN: an operator named "admin". */
    static final String OPERATOR_TOKEN = "operator-token-for-tests";
    /** From the tokens file: an operator named "olga" and a viewer named "victor". */
    static final String OLGA_TOKEN = "olga-operator-token";
    static final String VIEWER_TOKEN = "victor-viewer-token";
    /** SAGA_SANDBOX_LEDGER_TOKEN: sent on every call to the sandboxes, as the reconciler sends it. */
    static final String LEDGER_TOKEN = UUID.randomUUID().toString();
    private static TestProduct shared;

    private final Map<String, String> env;
    private final Map<String, String> defaults;
    private Product product;
    private Settings settings;
    /** Null: as the environment says (no OTEL_* variables in tests: off). */
    private Telemetry telemetry;
    final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private TestProduct(Map<String, String> env) {
        this.env = env;
        this.defaults = Map.copyOf(env);
        start();
    }

    /** One product per JVM: its consumers own the fixed topic names, so two would steal each other's records. */
    static synchronized TestProduct shared(TestInfra infra) {
        if (shared == null) {
            shared = new TestProduct(environment(infra));
            Runtime.getRuntime().addShutdownHook(new Thread(() -> shared.close()));
        }
        return shared;
    }

    /**
     * A product of its own with {@code env} (start from {@link #environment}); only on a broker of
     * its own, since two products on one broker steal each other's records. The caller closes it.
     */
    static TestProduct alone(Map<String, String> env) {
        return new TestProduct(new HashMap<>(env));
    }

    /** The tests' settings on {@code infra}'s database and broker. */
    static Map<String, String> environment(TestInfra infra) {
        Map<String, String> env = new HashMap<>();
        env.put("SAGA_DB_URL", infra.jdbcUrl());
        env.put("SAGA_DB_USER", infra.user());
        env.put("SAGA_DB_PASSWORD", infra.password());
        env.put("SAGA_KAFKA_BOOTSTRAP", infra.bootstrapServers());
        env.put("SAGA_HTTP_PORT", "0");
        env.put("SAGA_INVENTORY_PORT", "0");
        env.put("SAGA_PAYMENT_PORT", "0");
        env.put("SAGA_FRAUD_PORT", "0");
        env.put("SAGA_PAYMENT_STEP_TIMEOUT_MS", "8000");
        env.put("SAGA_CONSUMER_THREADS", "2");
        // Functional tests: a cold JVM on two busy cores must not look like a failing inventory.
        env.put("SAGA_INVENTORY_TIMEOUT_MS", "3000");
        // Functional tests send many orders for one customer at once: quotas have tests of their own.
        env.put("SAGA_CLIENT_RATE", "0");
        env.put("SAGA_PRIORITY_CUSTOMERS", "c-high,c-low");
        env.put("SAGA_ADMIN_PORT", "0");
        env.put("SAGA_ADMIN_TOKEN", OPERATOR_TOKEN);
        env.put("SAGA_ADMIN_TOKENS_FILE", tokensFile().toString());
        env.put("SAGA_SANDBOX_LEDGER_TOKEN", LEDGER_TOKEN);
        // Every test calls from 127.0.0.1, and some try wrong tokens: throttling has a test of its own.
        env.put("SAGA_ADMIN_AUTH_FAILURES", "1000000");
        env.put(FEW_WARM_UP_ORDERS.getKey(), FEW_WARM_UP_ORDERS.getValue());
        // Jobs that wait a minute before their first run run within seconds, so tests see them report.
        env.put("SAGA_STALLED_COMPENSATIONS_PERIOD_MS", "2000");
        env.put("SAGA_RETENTION_PERIOD_MS", "5000");
        return env;
    }

    /** The shared product if one was started in this JVM, else null. */
    static synchronized TestProduct sharedIfStarted() {
        return shared;
    }

    private static java.nio.file.Path tokensFile() {
        try {
            java.nio.file.Path file = java.nio.file.Files.createTempFile("admin-tokens", ".txt");
            file.toFile().deleteOnExit();
            java.nio.file.Files.writeString(file, "# tokens of the tests\nolga operator " + OLGA_TOKEN
                    + "\nvictor viewer " + VIEWER_TOKEN + "\n");
            return file;
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private void start() {
        settings = Settings.from(env::get, Map.of());
        product = Product.up(settings, new PrintStream(new ByteArrayOutputStream()), telemetry);
    }

    /**
     * Runs every role tracing with {@code traces} (null: untraced again), restarting only when that
     * changes. The instance is passed through the wiring, never installed as the global one.
     */
    synchronized void tracing(Telemetry traces) {
        if (traces != telemetry) {
            product.close();
            telemetry = traces;
            start();
        }
    }

    /** Stops every role and starts them again on the same database and topics, as after a crash. */
    synchronized void restart() {
        product.close();
        start();
    }

    /**
     * Restarts every role with {@code overrides} on top of the test defaults (same database, same
     * topics). Call {@link #defaults()} afterwards to go back.
     */
    synchronized void reconfigure(Map<String, String> overrides) {
        product.close();
        env.clear();
        env.putAll(defaults);
        env.putAll(overrides);
        start();
    }

    /**
     * Runs with {@code overrides} on top of the test defaults, restarting only if the product runs
     * with other settings now, so tests that share settings share one start.
     */
    synchronized void ensure(Map<String, String> overrides) {
        Map<String, String> wanted = new HashMap<>(defaults);
        wanted.putAll(overrides);
        if (!env.equals(wanted)) {
            reconfigure(overrides);
        }
    }

    /** Restarts with the test defaults if anything was overridden. */
    synchronized void defaults() {
        if (!env.equals(defaults)) {
            reconfigure(Map.of());
        }
    }

    Settings settings() {
        return settings;
    }

    Product product() {
        return product;
    }

    URI api(String path) {
        return URI.create("http://127.0.0.1:" + product.apiPort() + path);
    }

    /** A path on the operator API's own listener. */
    URI admin(String path) {
        return URI.create("http://127.0.0.1:" + product.adminPort() + path);
    }

    URI inventory(String path) {
        return URI.create("http://127.0.0.1:" + settings.inventoryPort() + path);
    }

    URI payments(String path) {
        return URI.create("http://127.0.0.1:" + settings.paymentPort() + path);
    }

    /** A path on the sandbox fraud service (called by the orders saga's version 2). */
    URI fraud(String path) {
        return URI.create("http://127.0.0.1:" + settings.fraudPort() + path);
    }

    HttpResponse<String> submit(String key, String body, String... headers) {
        return submit(key, body, !java.util.Arrays.asList(headers).contains("X-Deadline"), headers);
    }

    /** Submits without {@code X-Deadline}: the API's own request budget (500 ms by default) applies. */
    HttpResponse<String> submitWithinApiBudget(String key, String body, String... headers) {
        return submit(key, body, false, headers);
    }

    private HttpResponse<String> submit(String key, String body, boolean testDeadline, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(api("/orders")).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").POST(HttpRequest.BodyPublishers.ofString(body));
        if (testDeadline) {
            b.header("X-Deadline", Long.toString(System.currentTimeMillis() + 5000));
        }
        if (key != null) {
            b.header("Idempotency-Key", key);
        }
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return send(b.build());
    }

    static String order(String customer, String sku, int quantity, long unitPrice) {
        return "{\"customerId\":\"" + customer + "\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + sku
                + "\",\"quantity\":" + quantity + ",\"unitPriceCents\":" + unitPrice + "}]}";
    }

    JsonNode get(URI uri) {
        HttpResponse<String> r = send(toSandbox(HttpRequest.newBuilder(uri), uri).timeout(Duration.ofSeconds(10))
                .GET().build());
        return read(r.body());
    }

    HttpResponse<String> put(URI uri, String body) {
        return send(toSandbox(HttpRequest.newBuilder(uri), uri).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** A request to a sandbox carries the ledger token (the API's own keys are another matter). */
    private HttpRequest.Builder toSandbox(HttpRequest.Builder request, URI uri) {
        boolean sandbox = uri.getPort() == settings.inventoryPort() || uri.getPort() == settings.paymentPort();
        return sandbox ? request.header("Authorization", "Bearer " + LEDGER_TOKEN) : request;
    }

    void stock(String sku, int available) {
        put(inventory("/stock/" + sku), "{\"available\":" + available + "}");
    }

    JsonNode stockOf(String sku) {
        return get(inventory("/stock/" + sku));
    }

    JsonNode charges(UUID orderId) {
        return get(payments("/charges?orderId=" + orderId));
    }

    /** The sandbox inventory's reservations for {@code orderId}, whatever their status. */
    JsonNode reservations(UUID orderId) {
        return get(inventory("/reservations?orderId=" + orderId));
    }

    /** The API's metrics, as Prometheus text. */
    Metrics metrics() {
        return Metrics.parse(send(HttpRequest.newBuilder(api("/metrics")).timeout(Duration.ofSeconds(10)).GET()
                .build()).body());
    }

    JsonNode order(UUID orderId) {
        return get(api("/orders/" + orderId));
    }

    String status(UUID orderId) {
        return order(orderId).path("status").asText();
    }

    void awaitStatus(UUID orderId, String status, Duration within) {
        await().atMost(within).pollInterval(Duration.ofMillis(100)).until(() -> status.equals(status(orderId)));
    }

    void inventoryFaults(String json) {
        put(inventory("/_faults"), json);
    }

    void paymentFaults(String json) {
        put(payments("/_faults"), json);
    }

    void fraudFaults(String json) {
        put(fraud("/_faults"), json);
    }

    /** Back to no faults. */
    void healthy() {
        inventoryFaults("{\"latencyMs\":0,\"errorRate\":0.0,\"down\":false}");
        paymentFaults("{\"latencyMs\":0,\"declineRate\":0.0,\"down\":false,\"timeoutAfterCharge\":false}");
        fraudFaults("{\"latencyMs\":0,\"errorRate\":0.0,\"down\":false}");
    }

    HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static JsonNode read(String body) {
        try {
            return Json.mapper().readTree(body);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("not JSON: " + body, e);
        }
    }

    static UUID orderId(HttpResponse<String> response) {
        return UUID.fromString(read(response.body()).get("orderId").asText());
    }

    @Override
    public synchronized void close() {
        if (product != null) {
            product.close();
            product = null;
        }
    }
}
