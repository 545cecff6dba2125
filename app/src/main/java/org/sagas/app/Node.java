package org.sagas.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.sagas.orchestrator.messaging.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.jdbi.v3.core.Jdbi;
import org.sagas.adapters.http.HttpFraudClient;
import org.sagas.adapters.http.HttpInventoryClient;
import org.sagas.adapters.http.HttpPaymentClient;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.OrchestratorSettings;
import org.sagas.orchestrator.ordering.OrderGauges;
import org.sagas.orchestrator.ordering.ResilientFraudScreen;
import org.sagas.orchestrator.ordering.ResilientInventoryActions;
import org.sagas.orchestrator.ordering.OrderSaga;
import org.sagas.orchestrator.ordering.OrderSagaV1ToV2;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.app.metrics.MicrometerResilienceListener;
import org.sagas.orchestrator.config.ConfigException;
import org.sagas.orchestrator.resilience.ResilienceConfig;
import org.sagas.orchestrator.resilience.ResilienceSettings;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.app.metrics.IncidentGauges;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaTimings;
import org.sagas.orchestrator.tracing.Tracing;

/**
 * What every role of one process shares: the connection pool, the metrics registry, the saga
 * engine, one resilience stack per dependency, and the in-process relay signal. Thread-safe.
 */
public final class Node implements AutoCloseable {
    /** PostgreSQL {@code application_name} of the product's connections. */
    public static final String APPLICATION = "sagas";
    /** ... and of a process that runs only the sandbox participants. */
    public static final String SANDBOX_APPLICATION = "sagas-sandbox";
    final Settings settings;
    final HikariDataSource dataSource;
    final Jdbi jdbi;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final Clock clock = Clock.systemUTC();
    /** The resilience package's events as meters in {@link #registry}. */
    final MicrometerResilienceListener resilienceMetrics = new MicrometerResilienceListener(registry);
    final ResilientDependency inventory;
    final ResilientDependency payments;
    /** The fraud screening service, called by version 2 of the orders saga. */
    final ResilientDependency fraud;
    final SagaEngine engine;
    final OrderSaga orderSaga;
    /** Version 2 of the orders saga, registered beside version 1 (docs/design.md, "A second version of a saga"). */
    final OrderSaga orderSagaV2;
    final OrderGauges gauges;
    final IncidentGauges incidents;
    /** Traces (ADR 0018); {@link Tracing#off()} unless OTEL_* variables asked for them. */
    final Tracing tracing;
    private volatile Runnable relayWakeUp = () -> {};
    /** Touched whenever a saga moves in this process (docs/benchmarks.md, "Idle"). */
    final org.sagas.orchestrator.lifecycle.Activity activity = new org.sagas.orchestrator.lifecycle.Activity();
    private final Admin admin;
    private final ReadinessProbe readiness;

    private Node(Settings settings, HikariDataSource dataSource, Tracing tracing) {
        this.settings = settings;
        org.sagas.orchestrator.config.SettingsTable.Values orchestrator = settings.orchestrator();
        this.tracing = tracing;
        this.dataSource = dataSource;
        // The pool's own meters (hikaricp_connections_pending, ..._timeout_total): waits show.
        dataSource.setMetricRegistry(registry);
        this.jdbi = Jdbi.create(dataSource);
        this.inventory = ResilientDependency.create(inventoryLayers(settings, resilience(settings,
                ResilienceSettings.INVENTORY, ResilienceConfig.inventoryDefaults())), resilienceMetrics);
        this.payments = ResilientDependency.create(resilience(settings, ResilienceSettings.PAYMENT,
                ResilienceConfig.paymentDefaults()), resilienceMetrics);
        this.fraud = ResilientDependency.create(resilience(settings, ResilienceSettings.FRAUD,
                ResilienceConfig.fraudDefaults()), resilienceMetrics);
        ResilientInventoryActions inventoryActions = new ResilientInventoryActions(
                new HttpInventoryClient(URI.create(settings.inventoryUrl()), tracing), inventory, registry,
                orchestrator.get(OrchestratorSettings.DEGRADED_MODE));
        this.orderSaga = new OrderSaga(inventoryActions, orchestrator.get(OrchestratorSettings.PAYMENT_STEP_TIMEOUT));
        this.orderSagaV2 = OrderSaga.v2(inventoryActions, new ResilientFraudScreen(
                new HttpFraudClient(URI.create(settings.fraudUrl()), tracing), fraud, registry,
                orchestrator.get(OrchestratorSettings.DEGRADED_MODE)), orchestrator.get(OrchestratorSettings.PAYMENT_STEP_TIMEOUT));
        this.engine = new SagaEngine(jdbi, clock, new SagaTimings(orchestrator.get(OrchestratorSettings.STEP_LEASE), orchestrator.get(OrchestratorSettings.PARK_RETRY),
                orchestrator.get(OrchestratorSettings.PENDING_TTL), orchestrator.get(OrchestratorSettings.STEP_MAX_RETRIES)),
                () -> relayWakeUp.run(), tracing).register(orderSaga);
        // A process told to run no later version is, for the saga, the build before it (a rolling
        // deploy's old processes, or a version rolled out to some processes first).
        if (orchestrator.get(OrchestratorSettings.ORDER_SAGA_HIGHEST) >= orderSagaV2.version()) {
            engine.register(orderSagaV2).registerMigration(new OrderSagaV1ToV2());
        }
        try {
            engine.startOn(OrderSaga.TYPE, orchestrator.get(OrchestratorSettings.ORDER_SAGA_VERSION));
        } catch (IllegalArgumentException e) {
            throw new ConfigurationError("SAGA_ORDER_SAGA_VERSION: " + e.getMessage()
                    + " (SAGA_ORDER_SAGA_HIGHEST_VERSION is " + settings.orchestrator().get(
                            OrchestratorSettings.ORDER_SAGA_HIGHEST) + ")", e);
        }
        // Any saga's move counts as activity: the jobs that look for work back off without it.
        engine.onTransition(saga -> activity.touch());
        this.gauges = new OrderGauges(new OrderStore(jdbi), registry, clock);
        gauges.recordTerminals(engine, registry);
        // Counted on a period by the incident-gauges job (Product), and at once when one is raised.
        this.incidents = new IncidentGauges(engine, registry);
        engine.onIncident((id, cause) -> {
            try {
                incidents.refresh();
            } catch (RuntimeException e) {
                // The raise stands; the incident-gauges job reports a count that keeps failing.
            }
        });
        this.admin = settings.kafkaBootstrap().isEmpty() ? null : Admin.create(settings.kafka().config(Map.of(
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000)));
        this.readiness = new ReadinessProbe(this::checkReadiness, Duration.ofSeconds(1), Duration.ofSeconds(10))
                .start();
    }

    /** Reads {@code <prefix>_*} from the settings' text (their table is ResilienceSettings'). */
    private static ResilienceConfig resilience(Settings settings, String prefix, ResilienceConfig defaults) {
        try {
            return ResilienceSettings.read(prefix, defaults, settings.raw()::get);
        } catch (ConfigException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
    }

    /** Leaves out the layers SAGA_INVENTORY_LAYERS does not name (the timeout is always there). */
    private static ResilienceConfig inventoryLayers(Settings settings, ResilienceConfig config) {
        ResilienceConfig result = config;
        Set<String> layers = settings.orchestrator().get(OrchestratorSettings.INVENTORY_LAYERS);
        if (!layers.contains("breaker")) {
            result = result.withoutBreaker();
        }
        if (!layers.contains("bulkhead")) {
            result = result.withoutBulkhead();
        }
        if (!layers.contains("retries")) {
            result = result.withoutRetries();
        }
        return result;
    }

    /**
     * Connects to PostgreSQL (failing with one clear line) and applies pending migrations; the
     * connections carry {@code applicationName} (an {@code ApplicationName} in the URL wins).
     */
    static Node open(Settings settings, String applicationName) {
        return open(settings, applicationName, Tracing.off());
    }

    /** As {@link #open(Settings, String)}, tracing with {@code tracing}. */
    static Node open(Settings settings, String applicationName, Tracing tracing) {
        HikariDataSource ds = connect(settings, applicationName);
        migrate(settings, ds);
        return new Node(settings, ds, tracing);
    }

    /**
     * {@code ./sagas migrate}: applies the pending migrations as the configured user (the schema's
     * owner) whatever {@code SAGA_DB_MIGRATE} says, and returns how many it applied.
     */
    static int migrateOnly(Settings settings) {
        try (HikariDataSource ds = connect(settings, APPLICATION + "-migrate")) {
            return Migrations.apply(ds);
        } catch (RuntimeException e) {
            if (e instanceof ConfigurationError) {
                throw e;
            }
            throw new ConfigurationError("schema migration failed on " + settings.dbUrl() + ": " + e.getMessage(), e);
        }
    }

    /** A pool on PostgreSQL, failing with one clear line when it cannot be reached. */
    private static HikariDataSource connect(Settings settings, String applicationName) {
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(poolConfig(settings, applicationName));
        } catch (HikariPool.PoolInitializationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new ConfigurationError("cannot reach PostgreSQL at " + settings.dbUrl() + ": "
                    + cause.getMessage().lines().findFirst().orElse(cause.toString()), e);
        }
        return ds;
    }

    /**
     * Applies pending migrations, or with {@code SAGA_DB_MIGRATE=off} checks that none is pending
     * (the role's PostgreSQL user may not change the schema); closes {@code ds} when it fails.
     */
    static void migrate(Settings settings, HikariDataSource ds) {
        try {
            if (settings.migrate()) {
                Migrations.apply(ds);
                return;
            }
            int pending = Migrations.pending(ds);
            if (pending > 0) {
                throw new ConfigurationError("the schema on " + settings.dbUrl() + " lacks " + pending
                        + " migration(s) and SAGA_DB_MIGRATE=off: run ./sagas migrate as the schema's owner first");
            }
        } catch (ConfigurationError e) {
            ds.close();
            throw e;
        } catch (RuntimeException e) {
            ds.close();
            throw new ConfigurationError("schema migration failed on " + settings.dbUrl() + ": " + e.getMessage(), e);
        }
    }

    /** The product's connection pool: its size, and an end to every wait on PostgreSQL. */
    static HikariConfig poolConfig(Settings settings, String applicationName) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(settings.dbUrl());
        config.addDataSourceProperty("ApplicationName", applicationName);
        // Every wait has an end: connecting, a statement (cancelled by the server) and a server
        // that stops answering without a reset (the socket read gives up a little later).
        config.addDataSourceProperty("connectTimeout", "5"); // driver properties are text: a number would be ignored
        config.addDataSourceProperty("socketTimeout", Long.toString(Math.max(1, settings.dbSocketTimeout().toSeconds())));
        config.addDataSourceProperty("options", "-c statement_timeout=" + settings.dbStatementTimeout().toMillis());
        config.setUsername(settings.dbUser());
        // None at all (not an empty one) when unset: the server's own rule or the URL's password applies.
        config.setPassword(settings.dbPassword().isEmpty() ? null : settings.dbPassword());
        config.setMaximumPoolSize(settings.dbPoolSize());
        config.setConnectionTimeout(Math.min(10_000, Math.max(250, settings.dbWait().toMillis())));
        config.setInitializationFailTimeout(settings.dbWait().toMillis());
        config.setPoolName("sagas");
        return config;
    }

    HttpPaymentClient paymentClient() {
        return new HttpPaymentClient(URI.create(settings.paymentUrl()), tracing);
    }

    void relayWakeUp(Runnable wakeUp) {
        this.relayWakeUp = wakeUp;
    }

    Runnable relayWakeUp() {
        return () -> relayWakeUp.run();
    }

    /**
     * Creates the product's topics that do not exist yet (4 partitions, replication as the broker
     * defaults, records kept {@link Topics#RETENTION_MS}: less than the inbox keeps message ids).
     */
    void ensureTopics() {
        if (admin != null) {
            ensureTopics(admin, settings.kafkaBootstrap());
        }
    }

    private static final int ENSURE_TOPICS_MS = 30_000;

    /** As {@link #ensureTopics()}, through {@code admin} (e.g. a super user's, setting up a secured cluster). */
    static void ensureTopics(Admin admin, String where) {
        try {
            // The call's own 30 s, not the admin client's 2 s default: a process starting beside a
            // busy or just-started broker waits for it instead of ending at once.
            var existing = admin.listTopics(new ListTopicsOptions().timeoutMs(ENSURE_TOPICS_MS)).names()
                    .get(30, TimeUnit.SECONDS);
            var missing = Topics.all().stream().filter(t -> !existing.contains(t))
                    .map(t -> new NewTopic(t, Optional.of(4), Optional.empty()).configs(topicConfig(t)))
                    .toList();
            if (!missing.isEmpty()) {
                admin.createTopics(missing, new CreateTopicsOptions().timeoutMs(ENSURE_TOPICS_MS)).all()
                        .get(30, TimeUnit.SECONDS);
            }
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new ConfigurationError("cannot create topics on Kafka at " + where + ": "
                        + e.getCause().getMessage(), e);
            }
        } catch (TimeoutException e) {
            throw new ConfigurationError("Kafka at " + where + " does not answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigurationError("interrupted while creating topics", e);
        }
    }

    /** Sets every product topic's own settings (retention, compaction) on {@code admin}'s cluster. */
    static void applyTopicConfigs(Admin admin, String where) {
        Map<ConfigResource, Collection<AlterConfigOp>> ops = new LinkedHashMap<>();
        for (String topic : Topics.all()) {
            ops.put(new ConfigResource(ConfigResource.Type.TOPIC, topic), topicConfig(topic).entrySet().stream()
                    .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                    .toList());
        }
        try {
            admin.incrementalAlterConfigs(ops).all().get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new ConfigurationError("cannot set the topics' settings on Kafka at " + where, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigurationError("interrupted while setting the topics' settings", e);
        }
    }

    /**
     * Refuses to start when a topic the product consumes keeps its records as long as the inbox
     * keeps message ids, or longer: a redelivered message could then arrive after the record of
     * its first delivery was deleted, and be taken twice.
     */
    void checkTopicRetention(Duration inboxRetention) {
        if (admin == null) {
            return;
        }
        List<ConfigResource> topics = Topics.all().stream().filter(t -> !Topics.compacted(t) && !Topics.isDeadLetter(t))
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t)).toList();
        try {
            Map<ConfigResource, Config> configs = admin.describeConfigs(topics).all().get(30, TimeUnit.SECONDS);
            configs.forEach((topic, config) -> {
                long kept = Long.parseLong(config.get("retention.ms").value());
                if (kept < 0 || kept >= inboxRetention.toMillis()) {
                    throw new ConfigurationError("topic " + topic.name() + " keeps records "
                            + (kept < 0 ? "for ever" : kept + " ms") + ", not less than SAGA_INBOX_RETENTION_MS ("
                            + inboxRetention.toMillis() + " ms): a redelivery could be taken twice; shorten the"
                            + " topic's retention.ms or lengthen the inbox's");
                }
            });
        } catch (ExecutionException | TimeoutException e) {
            throw new ConfigurationError("cannot read the topics' retention on Kafka at " + settings.kafkaBootstrap(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigurationError("interrupted while reading the topics' retention", e);
        }
    }

    /** A topic's settings: ledgers compacted (each entry's last state kept), dead letters kept 30 days. */
    private static Map<String, String> topicConfig(String topic) {
        if (Topics.compacted(topic)) {
            return Map.of("cleanup.policy", "compact");
        }
        return Map.of("retention.ms", Long.toString(Topics.isDeadLetter(topic) ? Topics.DEAD_LETTER_RETENTION_MS
                : Topics.RETENTION_MS));
    }

    /** Whether PostgreSQL and Kafka answered at the last background check (at most about a second ago). */
    Map<String, Boolean> readiness() {
        return readiness.current();
    }

    /** PostgreSQL and Kafka answer now (each within about a second). */
    private Map<String, Boolean> checkReadiness() {
        Map<String, Boolean> checks = new LinkedHashMap<>();
        boolean db;
        try (var c = dataSource.getConnection()) {
            db = c.isValid(1);
        } catch (Exception e) {
            db = false;
        }
        checks.put("postgresql", db);
        boolean kafka = false;
        if (admin != null) {
            try {
                kafka = !admin.describeCluster().nodes().get(1500, TimeUnit.MILLISECONDS).isEmpty();
            } catch (Exception e) {
                kafka = false;
            }
        }
        checks.put("kafka", kafka);
        return checks;
    }

    /** The payment provider's bulkhead permits: how many charges the worker makes side by side. */
    int paymentPermits() {
        return payments.config().bulkhead().map(org.sagas.orchestrator.resilience.BulkheadConfig::permits).orElse(1);
    }

    @Override
    public void close() {
        readiness.close();
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
        dataSource.close();
    }
}
