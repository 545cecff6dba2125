package org.sagas.app.bench;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.sagas.app.EmbeddedStack;
import org.sagas.app.Node;
import org.sagas.app.Settings;
import org.sagas.app.cluster.ChildJvm;
import org.sagas.embedded.FreePorts;

/**
 * A benchmark's machine: PostgreSQL and the broker (embedded unless external ones are set), the
 * sandbox participants in a process of their own on a database of their own ({@value #SANDBOX_DB}),
 * and the product (every role but the sandbox) in another, freshly started by
 * {@link #startProduct}; this JVM is the client. So each one's CPU, and each database's
 * transactions, rows and WAL, can be told apart (docs/design.md, "Performance targets"). PostgreSQL backends are
 * told apart by {@code application_name}: {@code sagas} and {@code outbox-relay …} (the product),
 * {@code sagas-sandbox}, {@code sagas-bench} (this JVM). Not thread-safe, but for
 * {@link #monitor()}.
 */
final class BenchRig implements AutoCloseable {
    static final String SANDBOX_DB = "sagas_sandbox";
    static final String PRODUCT_ROLES = "api,saga-worker,relay,payment-worker,reconciler";
    private static final Duration START_LIMIT = Duration.ofSeconds(180);
    /** Where the processes' logs are kept after a run (the data directory goes with it). */
    private static final Path KEPT_LOGS = Path.of(System.getProperty("java.io.tmpdir"), "sagas-bench-logs");

    /** The sandbox's ledger token for this run: the product's reconciler and the checks send it. */
    static final String LEDGER_TOKEN = java.util.UUID.randomUUID().toString();
    private final EmbeddedStack stack;
    private final Settings infra;
    private final Connection stats;
    private final Monitor monitor;
    private final ChildJvm sandbox;
    private final String inventoryUrl;
    private final String paymentUrl;
    private final String fraudUrl;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private ChildJvm product;
    private URI api;

    private BenchRig(EmbeddedStack stack, Settings infra, Connection stats, Monitor monitor, ChildJvm sandbox,
            String inventoryUrl, String paymentUrl, String fraudUrl) {
        this.stack = stack;
        this.infra = infra;
        this.stats = stats;
        this.monitor = monitor;
        this.sandbox = sandbox;
        this.inventoryUrl = inventoryUrl;
        this.paymentUrl = paymentUrl;
        this.fraudUrl = fraudUrl;
    }

    /** Starts the infrastructure and the sandbox; the product comes with {@link #startProduct}. */
    static BenchRig start(Settings settings, java.io.PrintStream out) throws Exception {
        EmbeddedStack stack = EmbeddedStack.scratch().withStatementStatistics();
        Connection stats = null;
        ChildJvm sandbox = null;
        try {
            out.println("starting PostgreSQL and Kafka in " + stack.dataDir() + " ...");
            Settings infra = stack.start(settings, settings.embeddedDatabase(), settings.embeddedKafka());
            stats = connect(infra, withDatabase(infra.dbUrl(), "postgres"));
            try (Statement s = stats.createStatement()) {
                if (!exists(stats, SANDBOX_DB)) {
                    s.execute("CREATE DATABASE " + SANDBOX_DB);
                }
                try {
                    s.execute("CREATE EXTENSION IF NOT EXISTS pg_stat_statements");
                } catch (SQLException e) {
                    out.println("(pg_stat_statements unavailable: WAL per database is apportioned by rows written)");
                }
            }
            int inventoryPort = FreePorts.find();
            int paymentPort = FreePorts.find();
            Map<String, String> env = infraEnv(infra, withDatabase(infra.dbUrl(), SANDBOX_DB));
            env.put("SAGA_KAFKA_BOOTSTRAP", "");
            env.put("SAGA_INVENTORY_PORT", Integer.toString(inventoryPort));
            env.put("SAGA_PAYMENT_PORT", Integer.toString(paymentPort));
            int fraudPort = FreePorts.find();
            env.put("SAGA_FRAUD_PORT", Integer.toString(fraudPort));
            // The benchmarks stock SKUs and inject latency, as ./sagas up allows.
            env.put("SAGA_SANDBOX_CONTROLS", "on");
            out.println("starting the sandbox participants (a process of their own)...");
            sandbox = ChildJvm.start("sandbox", List.of("sandbox"), env, stack.dataDir().resolve("sandbox.log"));
            String host = infra.host();
            String inventory = "http://" + host + ":" + inventoryPort;
            String payment = "http://" + host + ":" + paymentPort;
            BenchRig rig = new BenchRig(stack, infra, stats, new Monitor(connect(infra, infra.dbUrl())), sandbox,
                    inventory, payment, "http://" + host + ":" + fraudPort);
            rig.awaitOk(sandbox, URI.create(inventory + "/_faults"));
            rig.warmParticipants(out);
            return rig;
        } catch (Exception | Error e) {
            if (sandbox != null) {
                sandbox.close();
            }
            if (stats != null) {
                stats.close();
            }
            stack.close();
            throw e;
        }
    }

    /**
     * Participants run warm in production (they are other teams' services, up for long): the
     * sandbox's reserve and release paths are driven directly here, so what a benchmark measures
     * is the product's cold start, not theirs.
     */
    private void warmParticipants(java.io.PrintStream out) throws Exception {
        out.println("warming the sandbox participants (reserve and release, directly)...");
        String sku = "RIG-WARM-UP";
        put(inventoryUrl + "/stock/" + sku, "{\"available\":1000000}");
        List<java.util.concurrent.CompletableFuture<HttpResponse<Void>>> calls = new java.util.ArrayList<>();
        for (int i = 0; i < 1500; i++) {
            String key = "rig-warm-up-" + i;
            calls.add(http.sendAsync(HttpRequest.newBuilder(URI.create(inventoryUrl + "/reservations"))
                    .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                    .header("Idempotency-Key", key)
                    .POST(HttpRequest.BodyPublishers.ofString("{\"orderId\":\"" + java.util.UUID.randomUUID()
                            + "\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":1}]}")).build(),
                    HttpResponse.BodyHandlers.discarding()).thenCompose(r -> http.sendAsync(HttpRequest.newBuilder(
                            URI.create(inventoryUrl + "/reservations/" + key + "/release"))
                            .timeout(Duration.ofSeconds(30)).header("Content-Type", "application/json")
                            .header("Idempotency-Key", key + ":release")
                            .POST(HttpRequest.BodyPublishers.ofString("{\"orderId\":\"x\"}")).build(),
                            HttpResponse.BodyHandlers.discarding())));
            if (calls.size() >= 16) {
                java.util.concurrent.CompletableFuture.allOf(calls.toArray(java.util.concurrent.CompletableFuture[]::new))
                        .get(60, java.util.concurrent.TimeUnit.SECONDS);
                calls.clear();
            }
        }
    }

    /**
     * Starts the product, cold, with {@code env} on top of the infrastructure's settings, and waits
     * until {@code /health/ready} answers 200 (which includes its warm-up, ADR 0016).
     *
     * @return seconds from start to ready
     */
    double startProduct(Map<String, String> env) throws Exception {
        Map<String, String> all = infraEnv(infra, infra.dbUrl());
        int port = FreePorts.find();
        all.put("SAGA_HTTP_PORT", Integer.toString(port));
        all.put("SAGA_INVENTORY_URL", inventoryUrl);
        all.put("SAGA_PAYMENT_URL", paymentUrl);
        all.put("SAGA_FRAUD_URL", fraudUrl);
        // The benchmarks drive one customer as fast as the machine allows (Benchmarks.benchSettings
        // turns the per-client rate limit off unless one was asked for): that must reach the product's
        // own process too, or its default limit (50/s) answers the rest 429 and caps the figures.
        all.put("SAGA_CLIENT_RATE", infra.raw().getOrDefault("SAGA_CLIENT_RATE", "0"));
        all.putAll(env);
        for (int attempt = 1; ; attempt++) {
            long t0 = System.nanoTime();
            product = ChildJvm.start("product", List.of(PRODUCT_ROLES), all, stack.dataDir().resolve("product.log"));
            api = URI.create("http://" + infra.host() + ":" + port);
            try {
                awaitOk(product, api.resolve("/health/ready"));
                return (System.nanoTime() - t0) / 1e9;
            } catch (IllegalStateException e) {
                // On a loaded machine the broker sometimes answers the start's topic check late.
                product.close();
                if (attempt == 3) {
                    throw e;
                }
                System.out.println("  product did not start (" + e.getMessage().lines().reduce((a, b) -> b)
                        .orElse("") + "); again");
            }
        }
    }

    /** The product's database name. */
    String productDbName() {
        String url = infra.dbUrl();
        int slash = url.indexOf('/', "jdbc:postgresql://".length());
        int query = url.indexOf('?', slash);
        return query < 0 ? url.substring(slash + 1) : url.substring(slash + 1, query);
    }

    /** The run's broker, as the product's clients reach it (plaintext, on loopback). */
    org.sagas.orchestrator.messaging.KafkaConnection kafka() {
        return org.sagas.orchestrator.messaging.KafkaConnection.plaintext(infra.kafkaBootstrap());
    }

    URI ordersUri() {
        return api.resolve("/orders");
    }

    String inventoryUrl() {
        return inventoryUrl;
    }

    String paymentUrl() {
        return paymentUrl;
    }

    /** Queries on the product's database, counted so their transactions can be taken off its own. */
    Monitor monitor() {
        return monitor;
    }

    /** A connection to the {@code postgres} database, for PostgreSQL's counters. */
    Connection stats() {
        return stats;
    }

    /** The product's database, for queries after a measurement. */
    Connection productDb() {
        return monitor.connection;
    }

    /** CPU by process: the product, the sandbox, this client, the broker; PostgreSQL by backend. */
    CpuMeter cpuMeter() throws SQLException {
        Map<String, ProcessHandle> jvms = new LinkedHashMap<>();
        jvms.put("product_jvm", product.handle());
        jvms.put("sandbox_jvm", sandbox.handle());
        jvms.put("client_jvm", ProcessHandle.current());
        ProcessHandle.of(stack.brokerPid()).ifPresent(b -> jvms.put("broker", b));
        try (Statement s = stats.createStatement(); ResultSet rs = s.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return new CpuMeter(rs.getLong(1), jvms);
        }
    }

    /**
     * {@code count} fresh SKUs named {@code prefix-0…}, each given {@code available} stock at the
     * sandbox inventory: one for a hot-SKU run, many for spread ones.
     */
    List<String> stockedSkus(String prefix, int count, long available) throws Exception {
        List<String> skus = new java.util.ArrayList<>();
        for (int i = 0; i < count; i++) {
            skus.add(prefix + "-" + i);
            put(inventoryUrl + "/stock/" + skus.get(i), "{\"available\":" + available + "}");
        }
        return skus;
    }

    /** The product's process id (its threads' CPU: {@link org.sagas.testkit.ThreadCpu}). */
    long productPid() {
        return product.handle().pid();
    }

    /** Which process each PostgreSQL backend serves now: product, sandbox or client. */
    Map<Long, String> backendGroups() throws SQLException {
        Map<Long, String> groups = new HashMap<>();
        try (Statement s = stats.createStatement(); ResultSet rs = s.executeQuery(
                "SELECT pid, application_name FROM pg_stat_activity WHERE backend_type = 'client backend'")) {
            while (rs.next()) {
                String app = rs.getString(2);
                String group = app.equals(Node.APPLICATION) || app.startsWith("outbox-relay") ? "product"
                        : app.equals(Node.SANDBOX_APPLICATION) ? "sandbox"
                        : app.equals(CLIENT_APPLICATION) ? "client" : null;
                if (group != null) {
                    groups.put(rs.getLong(1), group);
                }
            }
        }
        return groups;
    }

    /** A pool of {@code size} connections to the product's database, as the client. */
    com.zaxxer.hikari.HikariDataSource benchPool(int size) {
        com.zaxxer.hikari.HikariConfig config = new com.zaxxer.hikari.HikariConfig();
        config.setJdbcUrl(infra.dbUrl());
        config.setUsername(infra.dbUser());
        config.setPassword(infra.dbPassword().isEmpty() ? null : infra.dbPassword());
        config.setMaximumPoolSize(size);
        config.addDataSourceProperty("ApplicationName", CLIENT_APPLICATION);
        return new com.zaxxer.hikari.HikariDataSource(config);
    }

    /** PUT of a JSON body to the sandbox; fails unless it answers 200. */
    void put(String url, String json) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("PUT " + url + " answered " + r.statusCode() + ": " + r.body());
        }
    }

    /** Stops the product (as Ctrl-C would); the sandbox and infrastructure stay. */
    void stopProduct() {
        if (product != null) {
            product.close();
            keep(product.log());
            product = null;
        }
    }

    /** Keeps a process's log beyond the scratch directory, named by the time it was kept. */
    private void keep(Path log) {
        try {
            Files.createDirectories(KEPT_LOGS);
            Path kept = KEPT_LOGS.resolve(System.currentTimeMillis() + "-" + log.getFileName());
            Files.copy(log, kept);
            System.out.println("  (log kept in " + kept + ")");
        } catch (java.io.IOException e) {
            System.out.println("  (could not keep " + log + ": " + e.getMessage() + ")");
        }
    }

    @Override
    public void close() {
        stopProduct();
        sandbox.close();
        keep(sandbox.log());
        try {
            monitor.connection.close();
            stats.close();
        } catch (SQLException ignored) {
            // the server goes next
        }
        stack.close();
    }

    private void awaitOk(ChildJvm process, URI uri) throws Exception {
        long until = System.nanoTime() + START_LIMIT.toNanos();
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                throw new IllegalStateException(process.name() + " process ended; its log: " + tail(process.log()));
            }
            try {
                if (http.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(2)).GET().build(),
                        HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (java.io.IOException e) {
                // not listening yet
            }
            Thread.sleep(100);
        }
        throw new IllegalStateException(process.name() + " not ready after " + START_LIMIT.toSeconds() + " s: "
                + tail(process.log()));
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 20), lines.size()));
        } catch (java.io.IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    static final String CLIENT_APPLICATION = "sagas-bench";

    private static Connection connect(Settings infra, String url) throws SQLException {
        Properties p = new Properties();
        p.setProperty("user", infra.dbUser());
        if (!infra.dbPassword().isEmpty()) {
            p.setProperty("password", infra.dbPassword());
        }
        p.setProperty("ApplicationName", CLIENT_APPLICATION);
        return DriverManager.getConnection(url, p);
    }

    private static boolean exists(Connection c, String db) throws SQLException {
        try (PreparedStatement s = c.prepareStatement("SELECT 1 FROM pg_database WHERE datname = ?")) {
            s.setString(1, db);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next();
            }
        }
    }

    private static Map<String, String> infraEnv(Settings infra, String dbUrl) {
        Map<String, String> env = new HashMap<>();
        env.put("SAGA_DB_URL", dbUrl);
        env.put("SAGA_DB_USER", infra.dbUser());
        env.put("SAGA_DB_PASSWORD", infra.dbPassword());
        env.put("SAGA_DB_PASSWORD_FILE", "");
        env.put("SAGA_SANDBOX_LEDGER_TOKEN", LEDGER_TOKEN);
        env.put("SAGA_SANDBOX_LEDGER_TOKEN_FILE", "");
        env.put("SAGA_KAFKA_BOOTSTRAP", infra.kafkaBootstrap());
        env.put("SAGA_HTTP_PORT", Integer.toString(FreePorts.find()));
        return env;
    }

    /** {@code url} (jdbc:postgresql://host:port/db?…) with another database. */
    static String withDatabase(String url, String database) {
        int slash = url.indexOf('/', "jdbc:postgresql://".length());
        int query = url.indexOf('?', slash);
        return url.substring(0, slash + 1) + database + (query < 0 ? "" : url.substring(query));
    }

    /** One connection to the product's database whose statements are counted. Thread-safe. */
    static final class Monitor {
        private final Connection connection;
        private final AtomicLong statements = new AtomicLong();

        Monitor(Connection connection) {
            this.connection = connection;
        }

        /** {@code SELECT count(*) …} with one text parameter. */
        synchronized long count(String sql, String parameter) throws SQLException {
            statements.incrementAndGet();
            try (PreparedStatement s = connection.prepareStatement(sql)) {
                s.setString(1, parameter);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return rs.getLong(1);
                }
            }
        }

        /** Statements run so far: each one transaction of the product's database. */
        long statements() {
            return statements.get();
        }
    }
}
