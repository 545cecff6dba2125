package org.sagas.app;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

/**
 * Every setting of the product, from environment variables and command-line flags (flags win).
 * Immutable. {@link #describe()} lists them for {@code --help}; the docker-compose test checks
 * that every variable the compose file sets is one of {@link #VARIABLES}.
 */
public record Settings(String dbUrl, String dbUser, String dbPassword, String kafkaBootstrap, String host,
        int apiPort, int inventoryPort, int paymentPort, String inventoryUrl, String paymentUrl, Path dataDir,
        int dbPoolSize, int consumerThreads, Duration paymentTimeout, int pendingCap, double resumeRate,
        Duration pendingTtl, long requestBudgetMillis, long answerReserveMillis, boolean degradedMode, boolean shedding,
        java.util.Set<String> inventoryLayers, Duration stepLease, Duration parkRetry, int foregroundBusyAt,
        Duration foregroundMaxWait, double foregroundCpuBusy, Map<String, String> raw) {

    /** Variable → (default, description). */
    public static final Map<String, String[]> VARIABLES = new LinkedHashMap<>();

    static {
        v("SAGA_DB_URL", "", "JDBC URL of an external PostgreSQL; unset = embedded PostgreSQL");
        v("SAGA_DB_USER", "postgres", "PostgreSQL user");
        v("SAGA_DB_PASSWORD", "postgres", "PostgreSQL password");
        v("SAGA_KAFKA_BOOTSTRAP", "", "bootstrap servers of an external Kafka; unset = embedded broker");
        v("SAGA_HTTP_HOST", "127.0.0.1", "address the HTTP servers bind to");
        v("SAGA_HTTP_PORT", "8080", "orchestrator API port (--port)");
        v("SAGA_INVENTORY_PORT", "8081", "sandbox inventory port (--inventory-port)");
        v("SAGA_PAYMENT_PORT", "8082", "sandbox payment provider port (--payment-port)");
        v("SAGA_INVENTORY_URL", "", "inventory service base URL; unset = the sandbox on SAGA_INVENTORY_PORT");
        v("SAGA_PAYMENT_URL", "", "payment provider base URL; unset = the sandbox on SAGA_PAYMENT_PORT");
        v("SAGA_DATA_DIR", "",
                "where embedded PostgreSQL and Kafka keep data (--data-dir); unset = a fresh temp dir, deleted on a clean stop");
        v("SAGA_DB_POOL_SIZE", "8", "connections per process: a few per core do the most work (ADR 0007)");
        v("SAGA_CONSUMER_THREADS", "4", "Kafka consumers per consuming role");
        v("SAGA_PAYMENT_STEP_TIMEOUT_MS", "60000", "no payment reply within this → PAYMENT_UNKNOWN");
        v("SAGA_PENDING_CAP", "10000", "most orders pending confirmation before 503");
        v("SAGA_RESUME_MAX_RATE", "50", "most parked orders resumed per second");
        v("SAGA_PENDING_TTL_MS", "900000", "pending longer than this → CANCELLED (expired)");
        v("SAGA_LOG_LEVEL", "INFO", "root log level (logback)");
        v("SAGA_STEP_LEASE_MS", "30000", "a step whose runner died is run again after this");
        v("SAGA_PARK_RETRY_MS", "5000", "a parked saga is tried again after this (sooner when the breaker closes)");
        v("SAGA_REQUEST_BUDGET_MS", "500", "POST /orders budget when the client sends no X-Deadline");
        v("SAGA_ANSWER_RESERVE_MS", "100",
                "part of a POST /orders budget kept for storing the answer: inventory gets the rest");
        v("SAGA_FOREGROUND_BUSY_AT", "8",
                "order submissions in flight from which payment and reply consumers in the same process wait");
        v("SAGA_FOREGROUND_MAX_WAIT_MS", "1000", "longest such wait before each consumed batch (0: never wait)");
        v("SAGA_FOREGROUND_CPU_PERCENT", "90", "... and only while the machine's CPU use is at least this");
        v("SAGA_DEGRADED_MODE", "true", "park orders as PENDING_CONFIRMATION when inventory is unavailable");
        v("SAGA_SHEDDING", "true", "load shedding by X-Priority, passed deadlines, pending cap");
        v("SAGA_INVENTORY_LAYERS", "breaker,bulkhead,retries", "resilience layers around inventory (timeout always)");
        // Read by ReconcilerSettings (role reconciler).
        v("SAGA_RECONCILER_GRACE_MS", "30000",
                "how long a discrepancy about a known order must last before it is a finding");
        v("SAGA_RECONCILER_UNKNOWN_ORDER_GRACE_MS", "120000",
                "the same for a ledger entry whose order the reconciler has never seen");
        v("SAGA_RECONCILER_REPLY_WINDOW_MS", "120000", "a charge command without payment reply for this long is a finding");
        v("SAGA_RECONCILER_PULL_INTERVAL_MS", "1000", "how often the participants' ledger feeds are read");
        v("SAGA_RECONCILER_STANDBY_REPLICAS", "1", "warm copies of each reconciler task's state on other instances");
        v("SAGA_RECONCILER_STATE_DIR", "",
                "the reconciler's local state (RocksDB); unset = <data dir>/reconciler or a temp dir");
        // Read by ResilienceConfig.fromEnvironment; listed here for --help and the compose check.
        for (String dep : new String[] {"SAGA_INVENTORY", "SAGA_PAYMENT"}) {
            v(dep + "_TIMEOUT_MS", "", "timeout per attempt (inventory 300, payment 2000)");
            v(dep + "_MAX_ATTEMPTS", "", "attempts per call, retries included (3)");
            v(dep + "_BACKOFF_BASE_MS", "", "full-jitter back-off base (50 / 200)");
            v(dep + "_BACKOFF_CAP_MS", "", "full-jitter back-off cap (200 / 2000)");
            v(dep + "_BREAKER_FAILURE_PERCENT", "", "failure rate that opens the breaker (50)");
            v(dep + "_BREAKER_MIN_CALLS", "", "calls in the window before the breaker may open (20 / 10)");
            v(dep + "_BREAKER_WINDOW_MS", "", "breaker's counting window (10000)");
            v(dep + "_BREAKER_OPEN_MS", "", "how long the breaker stays open (10000)");
            v(dep + "_BREAKER_HALF_OPEN_TRIALS", "", "trial calls while half-open (3)");
            v(dep + "_BULKHEAD_PERMITS", "", "concurrent calls (24 / 16)");
            v(dep + "_BULKHEAD_WAIT_MS", "", "longest wait for a bulkhead permit (50 / 100)");
            v(dep + "_RETRY_BUDGET_RATIO", "", "retries allowed per call (0.1)");
            v(dep + "_RETRY_BUDGET_INITIAL", "", "retry budget at start (10)");
            v(dep + "_MIN_USEFUL_BUDGET_MS", "", "below this remaining deadline, don't call (20 / 50)");
        }
    }

    private static void v(String name, String def, String description) {
        VARIABLES.put(name, new String[] {def, description});
    }

    /** Reads {@code env} then applies {@code flags} (flag name → value). */
    public static Settings from(Function<String, String> env, Map<String, String> flags) {
        Map<String, String> raw = new LinkedHashMap<>();
        for (String name : VARIABLES.keySet()) {
            String value = env.apply(name);
            raw.put(name, value == null ? VARIABLES.get(name)[0] : value.trim());
        }
        flag(flags, raw, "--port", "SAGA_HTTP_PORT");
        flag(flags, raw, "--inventory-port", "SAGA_INVENTORY_PORT");
        flag(flags, raw, "--payment-port", "SAGA_PAYMENT_PORT");
        flag(flags, raw, "--data-dir", "SAGA_DATA_DIR");
        flag(flags, raw, "--host", "SAGA_HTTP_HOST");
        String host = raw.get("SAGA_HTTP_HOST");
        // Port 0 means "any free port"; the sandbox ports are fixed now because clients need their URLs.
        int inventoryPort = port(raw, "SAGA_INVENTORY_PORT");
        inventoryPort = inventoryPort == 0 ? org.sagas.embedded.FreePorts.find() : inventoryPort;
        int paymentPort = port(raw, "SAGA_PAYMENT_PORT");
        paymentPort = paymentPort == 0 ? org.sagas.embedded.FreePorts.find() : paymentPort;
        String inventoryUrl = raw.get("SAGA_INVENTORY_URL").isEmpty() ? "http://" + host + ":" + inventoryPort
                : raw.get("SAGA_INVENTORY_URL");
        String paymentUrl = raw.get("SAGA_PAYMENT_URL").isEmpty() ? "http://" + host + ":" + paymentPort
                : raw.get("SAGA_PAYMENT_URL");
        String dataDir = raw.get("SAGA_DATA_DIR");
        String dbUrl = raw.get("SAGA_DB_URL");
        if (!dbUrl.isEmpty() && !dbUrl.startsWith("jdbc:postgresql://")) {
            throw new ConfigurationError("SAGA_DB_URL must start with jdbc:postgresql:// (got " + dbUrl + ")");
        }
        return new Settings(dbUrl, raw.get("SAGA_DB_USER"), raw.get("SAGA_DB_PASSWORD"),
                raw.get("SAGA_KAFKA_BOOTSTRAP"), host, port(raw, "SAGA_HTTP_PORT"), inventoryPort, paymentPort,
                inventoryUrl, paymentUrl, dataDir.isEmpty() ? null : Path.of(dataDir),
                integer(raw, "SAGA_DB_POOL_SIZE", 1, 500), integer(raw, "SAGA_CONSUMER_THREADS", 1, 64),
                Duration.ofMillis(integer(raw, "SAGA_PAYMENT_STEP_TIMEOUT_MS", 100, 86_400_000)),
                integer(raw, "SAGA_PENDING_CAP", 0, 10_000_000),
                integer(raw, "SAGA_RESUME_MAX_RATE", 1, 100_000),
                Duration.ofMillis(integer(raw, "SAGA_PENDING_TTL_MS", 1_000, Integer.MAX_VALUE)),
                integer(raw, "SAGA_REQUEST_BUDGET_MS", 1, 600_000),
                integer(raw, "SAGA_ANSWER_RESERVE_MS", 0, 600_000), bool(raw, "SAGA_DEGRADED_MODE"),
                bool(raw, "SAGA_SHEDDING"), layers(raw.get("SAGA_INVENTORY_LAYERS")),
                Duration.ofMillis(integer(raw, "SAGA_STEP_LEASE_MS", 100, Integer.MAX_VALUE)),
                Duration.ofMillis(integer(raw, "SAGA_PARK_RETRY_MS", 10, Integer.MAX_VALUE)),
                integer(raw, "SAGA_FOREGROUND_BUSY_AT", 1, 100_000),
                Duration.ofMillis(integer(raw, "SAGA_FOREGROUND_MAX_WAIT_MS", 0, 60_000)),
                integer(raw, "SAGA_FOREGROUND_CPU_PERCENT", 0, 100) / 100.0, raw);
    }

    public boolean embeddedDatabase() {
        return dbUrl.isEmpty();
    }

    public boolean embeddedKafka() {
        return kafkaBootstrap.isEmpty();
    }

    /** The same settings pointing at concrete infrastructure. */
    public Settings withInfrastructure(String jdbcUrl, String user, String password, String bootstrap) {
        return new Settings(jdbcUrl, user, password, bootstrap, host, apiPort, inventoryPort, paymentPort,
                inventoryUrl, paymentUrl, dataDir, dbPoolSize, consumerThreads, paymentTimeout, pendingCap,
                resumeRate, pendingTtl, requestBudgetMillis, answerReserveMillis, degradedMode, shedding, inventoryLayers, stepLease, parkRetry,
                foregroundBusyAt, foregroundMaxWait, foregroundCpuBusy, raw);
    }

    /** One line per setting, for {@code --help}. */
    public static List<String> describe() {
        List<String> lines = new ArrayList<>();
        VARIABLES.forEach((name, d) -> lines.add(String.format("  %-36s %s%s", name, d[1],
                d[0].isEmpty() ? "" : " (default " + d[0] + ")")));
        return lines;
    }

    private static void flag(Map<String, String> flags, Map<String, String> raw, String flag, String variable) {
        if (flags.containsKey(flag)) {
            raw.put(variable, flags.get(flag));
        }
    }

    private static boolean bool(Map<String, String> raw, String name) {
        String value = raw.get(name);
        if ("true".equalsIgnoreCase(value) || "false".equalsIgnoreCase(value)) {
            return Boolean.parseBoolean(value);
        }
        throw new ConfigurationError(name + " must be true or false (got '" + value + "')");
    }

    private static java.util.Set<String> layers(String value) {
        java.util.Set<String> known = java.util.Set.of("breaker", "bulkhead", "retries");
        java.util.Set<String> set = new java.util.HashSet<>();
        for (String part : value.split(",")) {
            String layer = part.trim();
            if (layer.isEmpty() || layer.equals("none")) {
                continue;
            }
            if (!known.contains(layer)) {
                throw new ConfigurationError("SAGA_INVENTORY_LAYERS: unknown layer '" + layer
                        + "' (breaker, bulkhead, retries or none)");
            }
            set.add(layer);
        }
        return java.util.Set.copyOf(set);
    }

    private static int port(Map<String, String> raw, String name) {
        return integer(raw, name, 0, 65_535);
    }

    private static int integer(Map<String, String> raw, String name, int min, int max) {
        String value = raw.get(name);
        try {
            int v = Integer.parseInt(value);
            if (v < min || v > max) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new ConfigurationError(name + " must be an integer from " + min + " to " + max + " (got '"
                    + value + "')");
        }
    }
}
