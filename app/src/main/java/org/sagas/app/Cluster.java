package org.sagas.app;

import java.io.PrintStream;
import java.net.http.HttpClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.sagas.app.cluster.RoleProcess;
import org.sagas.app.cluster.RoundRobinFront;
import org.sagas.embedded.FreePorts;
import org.sagas.embedded.KafkaBroker;
import org.sagas.embedded.KafkaCluster;
import org.sagas.orchestrator.messaging.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code ./sagas cluster}: the product as a team that outgrew one process runs it, on one
 * machine — an embedded PostgreSQL, a KRaft cluster of three brokers (every topic replicated
 * three times, two in sync for a write), several processes of each role, each a JVM of its own
 * with its own log, one sandbox, and a round-robin front before the {@code api} processes
 * (docs/operations.md, "A cluster on one machine"). Its brokers take only clients that sign in,
 * each role as its own user with its own ACLs, set up as {@code ./sagas kafka-access} does
 * (docs/security.md, "Who may write to Kafka"), and each logs in to PostgreSQL as its own role with
 * only its grants, as compose's do (docs/security.md, "Deployment"). {@link #close()} stops everything it started,
 * the front and the roles first. Not thread-safe.
 */
final class Cluster implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(Cluster.class);
    /** The roles in the order they start: what is called before what calls it. */
    static final List<String> ROLES = Role.labels(Role.PRODUCT);
    private static final Duration READY_WITHIN = Duration.ofMinutes(4);
    /** How many times a process that ends before it is ready is started, in all. */
    private static final int STARTS = 3;

    /**
     * What to run.
     *
     * @param each processes of each role
     * @param brokers brokers of the Kafka cluster
     * @param frontPort the front's port (0: any free one)
     */
    record Shape(int each, int brokers, int frontPort) {
        Shape {
            if (each < 1 || each > 8) {
                throw new ConfigurationError("--each takes 1 to 8 processes of each role, not " + each);
            }
            if (brokers < 1 || brokers > 5) {
                throw new ConfigurationError("--brokers takes 1 to 5, not " + brokers);
            }
        }

        static Shape from(Map<String, String> flags, Settings settings) {
            try {
                return new Shape(Integer.parseInt(flags.getOrDefault("--each", "2")),
                        Integer.parseInt(flags.getOrDefault("--brokers", "3")), settings.apiPort());
            } catch (NumberFormatException e) {
                throw new ConfigurationError("--each and --brokers take a number: " + e.getMessage());
            }
        }
    }

    private final EmbeddedStack stack;
    private final ClusterCredentials credentials;
    private DatabaseRoles database;
    private final List<RoleProcess> processes = new ArrayList<>();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private RoundRobinFront front;
    private Settings infrastructure;
    private RoleProcess sandbox;
    private String adminToken;
    private String ledgerToken;
    private int inventoryPort;
    private int paymentPort;
    /** The sandbox fraud service's, which the orders saga's version 2 calls. */
    private final int fraudPort = FreePorts.find();
    private int adminPort = -1;
    private final Map<String, Integer> adminPorts = new LinkedHashMap<>();
    private final Map<String, String> overrides;

    private Cluster(EmbeddedStack stack, ClusterCredentials credentials, Map<String, String> overrides) {
        this.stack = stack;
        this.credentials = credentials;
        this.overrides = Map.copyOf(overrides);
    }

    /** Starts the whole of it and prints where everything is. */
    static Cluster start(Settings settings, Shape shape, PrintStream out) {
        return start(settings, shape, out, Map.of());
    }

    /**
     * As {@link #start(Settings, Shape, PrintStream)}, every process also given {@code overrides}
     * ({@code SAGA_*} settings, e.g. a test's short grace periods and leases), as if the launcher
     * had them in its environment.
     */
    static Cluster start(Settings settings, Shape shape, PrintStream out, Map<String, String> overrides) {
        EmbeddedStack stack = (settings.dataDir() != null ? new EmbeddedStack(settings.dataDir())
                : EmbeddedStack.scratch()).withBrokers(shape.brokers());
        ClusterCredentials credentials;
        try {
            credentials = ClusterCredentials.ensure(stack.dataDir());
        } catch (RuntimeException e) {
            stack.close();
            throw e;
        }
        stack.withKafkaSignIn(credentials.superPassword());
        Cluster cluster = new Cluster(stack, credentials, overrides);
        try {
            out.println("starting embedded PostgreSQL and " + shape.brokers() + " Kafka brokers in " + stack.dataDir()
                    + " (SASL/SCRAM sign-in and ACLs)");
            cluster.infrastructure = stack.start(settings, true, true);
            cluster.database = cluster.migrateAsOwner(out);
            out.println("Kafka users and ACLs, as ./sagas kafka-access sets them (passwords in "
                    + credentials.directory() + "):");
            KafkaAccess.apply(cluster.infrastructure.kafka(), credentials.directory(), out);
            cluster.checkReplication(shape.brokers(), out);
            cluster.adminToken = AdminTokenFile.ensure(stack.dataDir());
            cluster.ledgerToken = GeneratedSecret.ensure(stack.dataDir().resolve(SandboxSettings.TOKEN_FILE),
                    SandboxSettings.LEDGER_TOKEN.name());
            cluster.startProcesses(shape);
            cluster.front = RoundRobinFront.start(shape.frontPort(), cluster.apiPorts());
            cluster.print(out);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /**
     * The product's PostgreSQL roles as compose has them (docs/security.md, "Deployment"): made as
     * the superuser, the schema migrated as its owner, then each role's grants applied.
     */
    private DatabaseRoles migrateAsOwner(PrintStream out) {
        DatabaseRoles roles = DatabaseRoles.ensure(stack.dataDir());
        try (Connection c = DriverManager.getConnection(infrastructure.dbUrl(), infrastructure.dbUser(),
                infrastructure.dbPassword())) {
            roles.create(c);
        } catch (SQLException e) {
            throw new ConfigurationError("cannot create the PostgreSQL roles on " + infrastructure.dbUrl() + ": "
                    + e.getMessage(), e);
        }
        Settings owner = infrastructure.withInfrastructure(infrastructure.dbUrl(), DatabaseRoles.OWNER,
                roles.password(DatabaseRoles.OWNER), infrastructure.kafkaBootstrap());
        out.println("schema: " + Node.migrateOnly(owner) + " migrations applied as " + DatabaseRoles.OWNER);
        DatabaseRoles.applyGrants(owner);
        out.println("PostgreSQL roles and grants, as compose has them (" + DatabaseRoles.GRANTS + "; passwords in "
                + roles.directory() + ")");
        return roles;
    }

    private void startProcesses(Shape shape) {
        Path logs = stack.dataDir().resolve("logs");
        try {
            Files.createDirectories(logs);
        } catch (java.io.IOException e) {
            throw new ConfigurationError("cannot create " + logs + ": " + e.getMessage(), e);
        }
        inventoryPort = FreePorts.find();
        paymentPort = FreePorts.find();
        Map<String, String> common = commonEnv(inventoryPort, paymentPort);
        Map<String, String> sandboxEnv = new LinkedHashMap<>(common);
        sandboxEnv.put("SAGA_SANDBOX_CONTROLS", "on"); // chaos and the tour set stock and faults
        sandbox = add("sandbox", "sandbox", sandboxEnv, logs);
        sandbox.start().awaitReady(http, READY_WITHIN);
        List<RoleProcess> roles = new ArrayList<>();
        for (String role : ROLES) {
            for (int i = 1; i <= shape.each(); i++) {
                Map<String, String> env = new LinkedHashMap<>(common);
                if (role.equals("api")) {
                    int port = FreePorts.find();
                    adminPort = adminPort < 0 ? port : adminPort;
                    adminPorts.put(role + "-" + i, port);
                    env.put("SAGA_ADMIN_PORT", Integer.toString(port));
                }
                roles.add(add(role + "-" + i, role, env, logs));
            }
        }
        roles.forEach(RoleProcess::start);
        awaitReady(roles);
    }

    private RoleProcess add(String name, String role, Map<String, String> env, Path logs) {
        int port = FreePorts.find();
        Map<String, String> own = new LinkedHashMap<>(env);
        own.put("SAGA_HTTP_PORT", Integer.toString(port));
        own.putAll(credentials.env(KafkaAccess.of(role))); // its own user; the password stays in its file
        if (DatabaseRoles.PRODUCT_ROLES.contains(role)) {
            // Its own PostgreSQL login and grants; the sandbox stands in for the participants' own systems.
            own.remove(Settings.DB_PASSWORD.name());
            own.putAll(database.env(role));
        }
        RoleProcess p = new RoleProcess(name, role, port, own, logs.resolve(name + ".log"));
        processes.add(p);
        return p;
    }

    /**
     * Every process waited for at once: they start side by side. One that ends before it is ready
     * (e.g. its first call to a broker timed out on a busy machine) is started again, at most
     * {@link #STARTS} times in all, as compose's {@code restart: on-failure} does.
     */
    void awaitReady(List<RoleProcess> starting) {
        ExecutorService waiting = Executors.newFixedThreadPool(Math.max(1, starting.size()));
        try {
            List<Future<?>> ready = new ArrayList<>();
            for (RoleProcess p : starting) {
                ready.add(waiting.submit(() -> awaitReady(p)));
            }
            for (Future<?> f : ready) {
                f.get();
            }
        } catch (ExecutionException e) {
            throw e.getCause() instanceof RuntimeException r ? r : new IllegalStateException(e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while the cluster started", e);
        } finally {
            waiting.shutdownNow();
        }
    }

    private void awaitReady(RoleProcess p) {
        for (int start = 1; ; start++) {
            try {
                p.awaitReady(http, READY_WITHIN);
                return;
            } catch (IllegalStateException e) {
                if (p.isAlive() || start >= STARTS || Thread.currentThread().isInterrupted()) {
                    throw e;
                }
                log.warn("{} ended before it was ready (start {} of {}); starting it again: {}", p.name(), start,
                        STARTS, e.getMessage());
                p.start();
            }
        }
    }

    /**
     * The settings every process gets: the infrastructure, the participants, the tokens; the
     * schema is migrated once, by this launcher, before any role starts. The launcher's own
     * {@code SAGA_*} settings are handed on, so a setting applies to the whole cluster, except who
     * signs in to Kafka and logs in to PostgreSQL: each role is its own user.
     */
    private Map<String, String> commonEnv(int inventoryPort, int paymentPort) {
        Map<String, String> env = new LinkedHashMap<>();
        List<String> notHandedOn = List.of("SAGA_DATA_DIR", "SAGA_HTTP_PORT", Settings.DB_PASSWORD_FILE.name(),
                Settings.KAFKA_USER.name(),
                Settings.KAFKA_PASSWORD.name(), Settings.KAFKA_PASSWORD_FILE.name(),
                Settings.KAFKA_ROLE_CREDENTIALS.name());
        System.getenv().forEach((k, v) -> {
            if (k.startsWith("SAGA_") && !notHandedOn.contains(k)) {
                env.put(k, v);
            }
        });
        overrides.forEach((k, v) -> {
            if (!notHandedOn.contains(k)) {
                env.put(k, v);
            }
        });
        env.put("SAGA_DB_URL", infrastructure.dbUrl());
        env.put("SAGA_DB_USER", infrastructure.dbUser());
        env.put("SAGA_DB_PASSWORD", infrastructure.dbPassword());
        env.put("SAGA_DB_MIGRATE", "off");
        env.put("SAGA_KAFKA_BOOTSTRAP", infrastructure.kafkaBootstrap());
        env.put("SAGA_INVENTORY_PORT", Integer.toString(inventoryPort));
        env.put("SAGA_PAYMENT_PORT", Integer.toString(paymentPort));
        env.put("SAGA_INVENTORY_URL", "http://127.0.0.1:" + inventoryPort);
        env.put("SAGA_PAYMENT_URL", "http://127.0.0.1:" + paymentPort);
        env.put("SAGA_FRAUD_PORT", Integer.toString(fraudPort));
        env.put("SAGA_FRAUD_URL", "http://127.0.0.1:" + fraudPort);
        env.put("SAGA_SANDBOX_LEDGER_TOKEN", ledgerToken);
        env.put("SAGA_ADMIN_TOKEN", adminToken);
        return env;
    }

    /** Every topic of the product has as many replicas as the cluster has brokers, up to three. */
    private void checkReplication(int brokers, PrintStream out) {
        int expected = Math.min(3, brokers);
        try (Admin admin = Admin.create(infrastructure.kafka().config())) {
            Map<String, TopicDescription> topics = admin.describeTopics(Topics.all()).allTopicNames().get();
            List<String> short_ = topics.values().stream()
                    .filter(t -> t.partitions().stream().anyMatch(p -> p.replicas().size() != expected))
                    .map(TopicDescription::name).toList();
            if (!short_.isEmpty()) {
                throw new IllegalStateException("topics without " + expected + " replicas: " + short_);
            }
            out.println("topics: " + topics.size() + ", each replicated to " + expected + " brokers"
                    + (brokers >= 3 ? ", min.insync.replicas=2" : ""));
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot describe the topics: " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    private List<Integer> apiPorts() {
        return processes.stream().filter(p -> p.role().equals("api")).map(RoleProcess::httpPort).toList();
    }

    private void print(PrintStream out) {
        out.println("sagas cluster is up");
        out.println("  orders API   http://127.0.0.1:" + front.port() + "/orders  (round robin over "
                + apiPorts().size() + " api processes)");
        for (RoleProcess p : processes) {
            out.printf("  %-16s pid %-7d http://127.0.0.1:%d  log %s%n", p.name(), p.pid(), p.httpPort(), p.log());
        }
        out.println("  inventory    " + inventoryUrl() + "  (PUT /stock/{sku}, PUT /_faults)");
        out.println("  payments     " + paymentUrl() + "  (PUT /_faults; ledgers with the token below)");
        out.println("  ledger token " + stack.dataDir().resolve(SandboxSettings.TOKEN_FILE));
        out.println("  operator API http://127.0.0.1:" + adminPort() + "/admin  (token in "
                + stack.dataDir().resolve(AdminTokenFile.NAME) + ")");
        out.println("  PostgreSQL   " + infrastructure.dbUrl() + "  (each role as sagas_<role>, its grants only;"
                + " passwords in " + database.directory() + ", mode 600)");
        out.println("  Kafka        " + infrastructure.kafkaBootstrap() + "  (sign-in required: SASL/SCRAM-SHA-512,"
                + " each role as sagas-<role>, ACLs per role)");
        out.println("  Kafka users  passwords in " + credentials.directory() + "/<role> (mode 600); super user "
                + KafkaBroker.SUPER_USER + ": " + credentials.superPasswordFile());
        out.println("  check        SAGA_DB_URL=" + infrastructure.dbUrl() + " SAGA_DB_PASSWORD_FILE="
                + stack.dataDir().resolve("postgres").resolve(EmbeddedStack.PASSWORD_FILE) + " SAGA_KAFKA_BOOTSTRAP="
                + infrastructure.kafkaBootstrap() + " SAGA_KAFKA_USER=" + KafkaBroker.SUPER_USER
                + " SAGA_KAFKA_PASSWORD_FILE=" + credentials.superPasswordFile() + " SAGA_INVENTORY_URL=" + inventoryUrl() + " SAGA_PAYMENT_URL="
                + paymentUrl() + " SAGA_SANDBOX_LEDGER_TOKEN_FILE=" + stack.dataDir().resolve(SandboxSettings.TOKEN_FILE)
                + " ./sagas check");
        out.println("Ctrl-C stops everything.");
        out.flush();
    }

    /** The front's base URL. */
    String apiUrl() {
        return "http://127.0.0.1:" + front.port();
    }

    String inventoryUrl() {
        return "http://127.0.0.1:" + inventoryPort;
    }

    String paymentUrl() {
        return "http://127.0.0.1:" + paymentPort;
    }

    /** The first api process's operator port. */
    int adminPort() {
        return adminPort;
    }

    /** The operator port of api process {@code name} (e.g. {@code api-2}). */
    int adminPort(String name) {
        Integer port = adminPorts.get(name);
        if (port == null) {
            throw new IllegalArgumentException(name + " is not an api process of this cluster: " + adminPorts.keySet());
        }
        return port;
    }

    String adminToken() {
        return adminToken;
    }

    String ledgerToken() {
        return ledgerToken;
    }

    /** The settings the roles run with, for a checker or a client in this JVM. */
    Settings infrastructure() {
        return infrastructure;
    }

    List<RoleProcess> processes() {
        return List.copyOf(processes);
    }

    /** The brokers; null with a single one. */
    KafkaCluster brokers() {
        return stack.cluster();
    }

    /** Restarts PostgreSQL on its port and data; {@code abrupt}: as a crash, without a checkpoint. */
    void restartPostgres(boolean abrupt) {
        stack.restartPostgres(abrupt);
    }

    Path dataDir() {
        return stack.dataDir();
    }

    /** The product roles' PostgreSQL logins and their password files. */
    DatabaseRoles database() {
        return database;
    }

    /** The Kafka passwords: each role's, and the super user's the launcher, chaos and check sign in with. */
    ClusterCredentials credentials() {
        return credentials;
    }

    @Override
    public void close() {
        if (front != null) {
            front.close();
        }
        // Clients of the sandbox first, the sandbox last; side by side, each within its own bound.
        List<Thread> stopping = new ArrayList<>();
        for (RoleProcess p : processes) {
            if (p != sandbox) {
                Thread t = new Thread(p::stop, "stop-" + p.name());
                t.start();
                stopping.add(t);
            }
        }
        for (Thread t : stopping) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (sandbox != null) {
            sandbox.stop();
        }
        try {
            stack.close();
        } catch (RuntimeException e) {
            log.warn("the embedded servers did not stop cleanly: {}", e.toString());
        }
    }
}
