package org.sagas.app;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.sagas.orchestrator.OrchestratorSettings;
import org.sagas.orchestrator.config.ConfigException;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.resilience.ResilienceSettings;

import static org.sagas.orchestrator.config.Setting.integer;
import static org.sagas.orchestrator.config.Setting.millis;
import static org.sagas.orchestrator.config.Setting.text;

/**
 * The product's settings as one process reads them: from the tables where each is declared once
 * ({@link #tables()}), environment variables and command-line flags (flags win). Immutable.
 * {@link #describe()} lists them for {@code --help}, {@link #reference()} for
 * {@code docs/configuration.md}; the docker-compose test checks that every variable the compose
 * file sets is one of {@link #variables()}.
 */
public record Settings(String dbUrl, String dbUser, String dbPassword, String kafkaBootstrap, String host,
        int apiPort, int inventoryPort, int paymentPort, String inventoryUrl, String paymentUrl, Path dataDir,
        int dbPoolSize, int consumerThreads, SettingsTable.Values orchestrator, Map<String, String> raw) {

    private static final Set<String> ALL = Setting.ALL_ROLES;
    private static final Set<String> CONSUMERS = Set.of("saga-worker", "payment-worker");

    static final Setting<String> DB_URL = text("SAGA_DB_URL", "", ALL,
            "JDBC URL of an external PostgreSQL (jdbc:postgresql://…); unset = embedded PostgreSQL");
    static final Setting<String> DB_USER = text("SAGA_DB_USER", "postgres", ALL, "PostgreSQL user");
    // No default password: the embedded database makes its own, an external one is told.
    static final Setting<String> DB_PASSWORD = text("SAGA_DB_PASSWORD", "", ALL,
            "PostgreSQL password; unset = none (embedded PostgreSQL has its own)");
    static final Setting<String> DB_PASSWORD_FILE = text("SAGA_DB_PASSWORD_FILE", "", ALL,
            "file holding the PostgreSQL password, e.g. a Docker secret; its line end is dropped; not with SAGA_DB_PASSWORD");
    static final Setting<String> DB_MIGRATE = org.sagas.orchestrator.config.Setting.choice("SAGA_DB_MIGRATE", "on",
            List.of("on", "off"), ALL, "on: apply pending schema migrations at start; off: leave them to the schema's"
                    + " owner (./sagas migrate) and refuse to start on a schema that is behind (a PostgreSQL role without"
                    + " DDL rights)");
    static final Setting<String> DB_GRANTS = org.sagas.orchestrator.config.Setting.choice("SAGA_DB_GRANTS", "off",
            List.of("on", "off"), ALL, "on: ./sagas migrate then applies ops/postgres/grants.sql, each product role's"
                    + " table grants (its PostgreSQL roles must exist, docs/security.md); off: leaves grants alone");
    static final Setting<String> KAFKA_BOOTSTRAP = text("SAGA_KAFKA_BOOTSTRAP", "", ALL,
            "bootstrap servers of an external Kafka; unset = embedded broker");
    static final Setting<String> KAFKA_USER = text("SAGA_KAFKA_USER", "", ALL,
            "SASL/SCRAM user this process signs in to Kafka as (its role's user, docs/security.md); unset = no sign-in");
    static final Setting<String> KAFKA_PASSWORD = text("SAGA_KAFKA_PASSWORD", "", ALL,
            "password of SAGA_KAFKA_USER");
    static final Setting<String> KAFKA_PASSWORD_FILE = text("SAGA_KAFKA_PASSWORD_FILE", "", ALL,
            "file holding the password of SAGA_KAFKA_USER, e.g. a Docker secret; not with SAGA_KAFKA_PASSWORD");
    static final Setting<String> KAFKA_ROLE_CREDENTIALS = text("SAGA_KAFKA_ROLE_CREDENTIALS_DIR", "",
            Set.of("kafka-access"), "directory with one file per role (api, saga-worker, relay, payment-worker,"
                    + " reconciler) holding the password of its Kafka user sagas-<role>; ./sagas kafka-access reads it");
    static final Setting<String> HTTP_HOST = text("SAGA_HTTP_HOST", "127.0.0.1", ALL,
            "address the HTTP servers bind to (--host)");
    static final Setting<Integer> HTTP_PORT = integer("SAGA_HTTP_PORT", 8080, 0, 65_535, "port", ALL,
            "orchestrator API port, health and metrics (--port; 0: any free port)");
    static final Setting<Integer> INVENTORY_PORT = integer("SAGA_INVENTORY_PORT", 8081, 0, 65_535, "port",
            Set.of("sandbox"), "sandbox inventory port (--inventory-port)");
    static final Setting<Integer> PAYMENT_PORT = integer("SAGA_PAYMENT_PORT", 8082, 0, 65_535, "port",
            Set.of("sandbox"), "sandbox payment provider port (--payment-port)");
    static final Setting<Integer> FRAUD_PORT = integer("SAGA_FRAUD_PORT", 8083, 0, 65_535, "port",
            Set.of("sandbox"), "sandbox fraud screening port (--fraud-port), called by the orders saga's version 2");
    static final Setting<String> FRAUD_URL = text("SAGA_FRAUD_URL", "", Set.of("api", "saga-worker"),
            "fraud screening service base URL (the orders saga's version 2); unset = the sandbox on SAGA_FRAUD_PORT");
    static final Setting<String> INVENTORY_URL = text("SAGA_INVENTORY_URL", "", Set.of("api", "saga-worker", "reconciler"),
            "inventory service base URL; unset = the sandbox on SAGA_INVENTORY_PORT");
    static final Setting<String> PAYMENT_URL = text("SAGA_PAYMENT_URL", "", Set.of("payment-worker", "reconciler"),
            "payment provider base URL; unset = the sandbox on SAGA_PAYMENT_PORT");
    static final Setting<String> DATA_DIR = text("SAGA_DATA_DIR", "", Set.of("up"),
            "where embedded PostgreSQL and Kafka keep data (--data-dir); unset = a fresh temp dir, deleted on a clean stop");
    static final Setting<Integer> DB_POOL_SIZE = integer("SAGA_DB_POOL_SIZE", 8, 1, 500, "connections", ALL,
            "connections per process: a few per core do the most work (ADR 0007)");
    static final Setting<Duration> DB_WAIT = millis("SAGA_DB_WAIT_MS", 15_000, 1, 600_000, ALL,
            "how long a process waits for PostgreSQL to accept connections at start (e.g. started beside it)"
                    + " before it exits with one line saying why");
    static final Setting<Duration> DB_STATEMENT_TIMEOUT = millis("SAGA_DB_STATEMENT_TIMEOUT_MS", 30_000, 100, 3_600_000,
            ALL, "PostgreSQL cancels a statement of the product's pool after this (statement_timeout); migrations"
                    + " have none");
    static final Setting<Duration> DB_SOCKET_TIMEOUT = millis("SAGA_DB_SOCKET_TIMEOUT_MS", 60_000, 1_000, 3_600_000,
            ALL, "a connection whose PostgreSQL sends nothing for this long while a statement runs is dropped"
                    + " (a server that stopped answering without a reset); above the statement timeout");
    static final Setting<Integer> CONSUMER_THREADS = integer("SAGA_CONSUMER_THREADS", 4, 1, 64, "consumers",
            CONSUMERS, "Kafka consumers per consuming role (the saga worker's reply consumer is one when the payment"
                    + " worker shares its process: its replies skip the topic, ADR 0029)");
    static final Setting<String> LOG_LEVEL = text("SAGA_LOG_LEVEL", "INFO", ALL, "root log level (logback)");
    static final Setting<Integer> WARM_UP_ORDERS = integer("SAGA_WARM_UP_ORDERS", 300, 0, 100_000, "orders",
            Set.of("api"), "dry-run orders (rolled back) through the order path before /health/ready turns ready,"
                    + " so the first real ones are served at speed (ADR 0016); 0: none");
    static final Setting<Duration> WARM_UP_MAX = millis("SAGA_WARM_UP_MAX_MS", 20_000, 0, 600_000, Set.of("api"),
            "the warm-up stops after this long, done or not (logged and counted), and the API turns ready");

    /** The launcher's and the infrastructure's settings. */
    static final SettingsTable TABLE = SettingsTable.of("Infrastructure and processes", List.of(DB_URL, DB_USER,
            DB_PASSWORD, DB_PASSWORD_FILE, DB_MIGRATE, DB_GRANTS, KAFKA_BOOTSTRAP, KAFKA_USER, KAFKA_PASSWORD, KAFKA_PASSWORD_FILE,
            KAFKA_ROLE_CREDENTIALS, HTTP_HOST, HTTP_PORT, INVENTORY_PORT, PAYMENT_PORT, FRAUD_PORT, INVENTORY_URL,
            PAYMENT_URL, FRAUD_URL, DATA_DIR, DB_POOL_SIZE, DB_WAIT, DB_STATEMENT_TIMEOUT, DB_SOCKET_TIMEOUT, CONSUMER_THREADS, LOG_LEVEL, WARM_UP_ORDERS, WARM_UP_MAX));

    /** Every table of the product, in the order the reference and {@code --help} list them. */
    static List<SettingsTable> tables() {
        return List.of(TABLE, OrchestratorSettings.TABLE, ApiProtection.TABLE, AdminSettings.TABLE,
                SandboxSettings.TABLE, ReconcilerSettings.TABLE, ResilienceSettings.inventoryTable(),
                ResilienceSettings.paymentTable(), ResilienceSettings.fraudTable());
    }

    /** Every variable the product reads. */
    static Set<String> variables() {
        Set<String> names = new java.util.LinkedHashSet<>();
        tables().forEach(t -> t.settings().forEach(s -> names.add(s.name())));
        return names;
    }

    /** Reads {@code env} then applies {@code flags} (flag name → value); flags win. */
    public static Settings from(Function<String, String> env, Map<String, String> flags) {
        Map<String, String> withFlags = new java.util.HashMap<>();
        flag(flags, withFlags, "--port", "SAGA_HTTP_PORT");
        flag(flags, withFlags, "--inventory-port", "SAGA_INVENTORY_PORT");
        flag(flags, withFlags, "--payment-port", "SAGA_PAYMENT_PORT");
        flag(flags, withFlags, "--fraud-port", "SAGA_FRAUD_PORT");
        flag(flags, withFlags, "--data-dir", "SAGA_DATA_DIR");
        flag(flags, withFlags, "--host", "SAGA_HTTP_HOST");
        flag(flags, withFlags, "--admin-port", "SAGA_ADMIN_PORT");
        Function<String, String> source = name -> withFlags.containsKey(name) ? withFlags.get(name) : env.apply(name);
        try {
            return from(source);
        } catch (ConfigException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
    }

    private static Settings from(Function<String, String> source) {
        SettingsTable.Values app = TABLE.read(source);
        SettingsTable.Values o = OrchestratorSettings.TABLE.read(source);
        Map<String, String> raw = new LinkedHashMap<>();
        for (SettingsTable table : tables()) {
            raw.putAll(table == TABLE ? app.raw() : table == OrchestratorSettings.TABLE ? o.raw()
                    : table.read(source).raw());
        }
        String host = app.get(HTTP_HOST);
        // Port 0 means "any free port"; the sandbox ports are fixed now because clients need their URLs.
        int inventoryPort = app.get(INVENTORY_PORT);
        inventoryPort = inventoryPort == 0 ? org.sagas.embedded.FreePorts.find() : inventoryPort;
        int paymentPort = app.get(PAYMENT_PORT);
        paymentPort = paymentPort == 0 ? org.sagas.embedded.FreePorts.find() : paymentPort;
        String inventoryUrl = app.get(INVENTORY_URL).isEmpty() ? "http://" + host + ":" + inventoryPort
                : app.get(INVENTORY_URL);
        String paymentUrl = app.get(PAYMENT_URL).isEmpty() ? "http://" + host + ":" + paymentPort
                : app.get(PAYMENT_URL);
        if (app.get(FRAUD_PORT) == 0) {
            // Fixed now, as the other sandboxes' ports are: the fraud client needs its URL.
            raw.put(FRAUD_PORT.name(), Integer.toString(org.sagas.embedded.FreePorts.find()));
        }
        String dataDir = app.get(DATA_DIR);
        String dbUrl = app.get(DB_URL);
        if (!dbUrl.isEmpty() && !dbUrl.startsWith("jdbc:postgresql://")) {
            throw new ConfigurationError("SAGA_DB_URL must start with jdbc:postgresql:// (got " + dbUrl + ")");
        }
        String dbPassword = SecretFile.resolve(raw, DB_PASSWORD.name());
        String kafkaPassword = SecretFile.resolve(raw, KAFKA_PASSWORD.name());
        if (!app.get(KAFKA_USER).isEmpty() && kafkaPassword.isEmpty()) {
            throw new ConfigurationError("SAGA_KAFKA_USER is set without SAGA_KAFKA_PASSWORD or SAGA_KAFKA_PASSWORD_FILE");
        }
        return new Settings(dbUrl, app.get(DB_USER), dbPassword, app.get(KAFKA_BOOTSTRAP), host,
                app.get(HTTP_PORT), inventoryPort, paymentPort, inventoryUrl, paymentUrl,
                dataDir.isEmpty() ? null : Path.of(dataDir), app.get(DB_POOL_SIZE), app.get(CONSUMER_THREADS), o,
                Map.copyOf(raw));
    }

    /**
     * The same settings for a product that a command starts for itself (a benchmark, the fuzzer):
     * every port free, the participants its own sandbox's, and no per-client rate limit unless one
     * was asked for (the benchmarks drive one customer as fast as the machine allows). It never
     * collides with a product already running.
     */
    public Settings forOwnProduct() {
        Map<String, String> env = new java.util.HashMap<>(raw);
        for (Setting<?> port : List.of(HTTP_PORT, INVENTORY_PORT, PAYMENT_PORT, FRAUD_PORT, AdminSettings.PORT)) {
            env.put(port.name(), "0");
        }
        for (Setting<?> url : List.of(INVENTORY_URL, PAYMENT_URL, FRAUD_URL)) {
            env.put(url.name(), "");
        }
        if (env.get(ApiProtection.CLIENT_RATE.name()).equals(ApiProtection.CLIENT_RATE.defaultValue())) {
            env.put(ApiProtection.CLIENT_RATE.name(), "0");
        }
        return from(env::get, Map.of());
    }

    /** The sandbox fraud service's port (0 in the environment: a free port, chosen once when read). */
    public int fraudPort() {
        return Integer.parseInt(raw.get(FRAUD_PORT.name()));
    }

    /** The fraud screening service the orders saga's version 2 calls. */
    public String fraudUrl() {
        String url = raw.getOrDefault(FRAUD_URL.name(), "");
        return url.isEmpty() ? "http://" + host + ":" + fraudPort() : url;
    }

    /** How long a process waits for PostgreSQL at start. */
    public Duration dbWait() {
        return TABLE.read(raw::get).get(DB_WAIT);
    }

    /** The pool's statement timeout. */
    public Duration dbStatementTimeout() {
        return TABLE.read(raw::get).get(DB_STATEMENT_TIMEOUT);
    }

    /** The pool's socket timeout, never below the statement timeout plus a second. */
    public Duration dbSocketTimeout() {
        Duration socket = TABLE.read(raw::get).get(DB_SOCKET_TIMEOUT);
        Duration floor = dbStatementTimeout().plusSeconds(1);
        return socket.compareTo(floor) < 0 ? floor : socket;
    }

    /** Whether this process applies pending migrations at start. */
    public boolean migrate() {
        return TABLE.read(raw::get).get(DB_MIGRATE).equals("on");
    }

    /** Whether {@code ./sagas migrate} applies the product roles' grants after the migrations. */
    public boolean grants() {
        return TABLE.read(raw::get).get(DB_GRANTS).equals("on");
    }

    public int warmUpOrders() {
        return TABLE.read(raw::get).get(WARM_UP_ORDERS);
    }

    /** The longest the warm-up may take. */
    public Duration warmUpMax() {
        return TABLE.read(raw::get).get(WARM_UP_MAX);
    }

    public boolean embeddedDatabase() {
        return dbUrl.isEmpty();
    }

    public boolean embeddedKafka() {
        return kafkaBootstrap.isEmpty();
    }

    /** Who this process is to Kafka: plaintext, or signed in as SAGA_KAFKA_USER. */
    public KafkaConnection kafka() {
        String user = raw.getOrDefault(KAFKA_USER.name(), "");
        return user.isEmpty() ? KafkaConnection.plaintext(kafkaBootstrap)
                : KafkaConnection.scram(kafkaBootstrap, user, raw.get(KAFKA_PASSWORD.name()));
    }

    /** The same settings pointing at concrete infrastructure. */
    public Settings withInfrastructure(String jdbcUrl, String user, String password, String bootstrap) {
        return new Settings(jdbcUrl, user, password, bootstrap, host, apiPort, inventoryPort, paymentPort,
                inventoryUrl, paymentUrl, dataDir, dbPoolSize, consumerThreads, orchestrator, raw);
    }

    /**
     * The same settings with {@code variable} (one of {@link #variables()}) set to {@code value}, as
     * if the environment had said so: how {@code ./sagas up} hands what it made (a generated token)
     * to every role in its process.
     */
    Settings with(String variable, String value) {
        if (!raw.containsKey(variable)) {
            throw new IllegalArgumentException("not a setting: " + variable);
        }
        Map<String, String> changed = new LinkedHashMap<>(raw);
        changed.put(variable, value);
        return new Settings(dbUrl, dbUser, dbPassword, kafkaBootstrap, host, apiPort, inventoryPort, paymentPort,
                inventoryUrl, paymentUrl, dataDir, dbPoolSize, consumerThreads, orchestrator,
                java.util.Collections.unmodifiableMap(changed));
    }

    /** One line per setting, for {@code --help}, table by table. */
    public static List<String> describe() {
        List<String> lines = new ArrayList<>();
        for (SettingsTable table : tables()) {
            lines.add(" " + table.title() + ":");
            lines.addAll(table.helpLines());
        }
        return lines;
    }

    /** The configuration reference, {@code docs/configuration.md}: every table, generated. */
    public static String reference() {
        StringBuilder out = new StringBuilder("# Configuration\n\n")
                .append("Every setting is an environment variable, declared once in its module's table; this page is\n")
                .append("generated from those tables (`./sagas settings > docs/configuration.md`) and a test fails when\n")
                .append("it is out of date. A malformed or out-of-range value stops the process with one line naming\n")
                .append("the variable and what it accepts. Flags (`--port`, `--data-dir`, …) override their variables.\n\n");
        tables().forEach(t -> out.append(t.markdown()));
        return out.toString();
    }

    private static void flag(Map<String, String> flags, Map<String, String> into, String flag, String variable) {
        if (flags.containsKey(flag)) {
            into.put(variable, flags.get(flag));
        }
    }
}
