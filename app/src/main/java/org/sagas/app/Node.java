package org.sagas.app;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import com.zaxxer.hikari.pool.HikariPool;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.errors.TopicExistsException;
import org.sagas.orchestrator.messaging.Topics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.jdbi.v3.core.Jdbi;
import org.sagas.adapters.http.HttpInventoryClient;
import org.sagas.adapters.http.HttpPaymentClient;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.ordering.OrderGauges;
import org.sagas.orchestrator.ordering.ResilientInventoryActions;
import org.sagas.orchestrator.ordering.OrderSaga;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.resilience.ResilienceConfig;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaTimings;

/**
 * What every role of one process shares: the connection pool, the metrics registry, the saga
 * engine, one resilience stack per dependency, and the in-process relay signal. Thread-safe.
 */
final class Node implements AutoCloseable {
    final Settings settings;
    final HikariDataSource dataSource;
    final Jdbi jdbi;
    final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    final Clock clock = Clock.systemUTC();
    final ResilientDependency inventory;
    final ResilientDependency payments;
    final SagaEngine engine;
    final OrderSaga orderSaga;
    final OrderGauges gauges;
    private volatile Runnable relayWakeUp = () -> {};
    private final Admin admin;

    private Node(Settings settings, HikariDataSource dataSource) {
        this.settings = settings;
        this.dataSource = dataSource;
        // The pool's own meters (hikaricp_connections_pending, ..._timeout_total): waits show.
        dataSource.setMetricRegistry(registry);
        this.jdbi = Jdbi.create(dataSource);
        this.inventory = ResilientDependency.create(resilience(settings, "SAGA_INVENTORY",
                ResilienceConfig.inventoryDefaults())
                .withBreaker(settings.inventoryLayers().contains("breaker"))
                .withBulkhead(settings.inventoryLayers().contains("bulkhead"))
                .withRetries(settings.inventoryLayers().contains("retries")), registry);
        this.payments = ResilientDependency.create(resilience(settings, "SAGA_PAYMENT",
                ResilienceConfig.paymentDefaults()), registry);
        this.orderSaga = new OrderSaga(new ResilientInventoryActions(
                new HttpInventoryClient(URI.create(settings.inventoryUrl())), inventory, registry,
                settings.degradedMode()),
                settings.paymentTimeout());
        this.engine = new SagaEngine(jdbi, clock, new SagaTimings(settings.stepLease(), settings.parkRetry(),
                settings.pendingTtl()), () -> relayWakeUp.run()).register(orderSaga);
        this.gauges = new OrderGauges(new OrderStore(jdbi), registry, clock).start(Duration.ofMillis(500));
        gauges.recordTerminals(engine, registry);
        this.admin = settings.kafkaBootstrap().isEmpty() ? null : Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, settings.kafkaBootstrap(),
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000,
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000));
    }

    private static ResilienceConfig resilience(Settings settings, String prefix, ResilienceConfig defaults) {
        try {
            return ResilienceConfig.fromEnvironment(prefix, defaults, settings.raw()::get);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
    }

    /** Connects to PostgreSQL (failing with one clear line) and applies pending migrations. */
    static Node open(Settings settings) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(settings.dbUrl());
        config.setUsername(settings.dbUser());
        config.setPassword(settings.dbPassword());
        config.setMaximumPoolSize(settings.dbPoolSize());
        config.setConnectionTimeout(10_000);
        config.setInitializationFailTimeout(15_000);
        config.setPoolName("sagas");
        HikariDataSource ds;
        try {
            ds = new HikariDataSource(config);
        } catch (HikariPool.PoolInitializationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new ConfigurationError("cannot reach PostgreSQL at " + settings.dbUrl() + ": "
                    + cause.getMessage().lines().findFirst().orElse(cause.toString()), e);
        }
        try {
            Migrations.apply(ds);
        } catch (RuntimeException e) {
            ds.close();
            throw new ConfigurationError("schema migration failed on " + settings.dbUrl() + ": " + e.getMessage(), e);
        }
        return new Node(settings, ds);
    }

    HttpPaymentClient paymentClient() {
        return new HttpPaymentClient(URI.create(settings.paymentUrl()));
    }

    void relayWakeUp(Runnable wakeUp) {
        this.relayWakeUp = wakeUp;
    }

    Runnable relayWakeUp() {
        return () -> relayWakeUp.run();
    }

    /** Creates the product's topics that do not exist yet (4 partitions, replication 1 or as the broker defaults). */
    void ensureTopics() {
        if (admin == null) {
            return;
        }
        try {
            var existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            var missing = Topics.all().stream().filter(t -> !existing.contains(t))
                    .map(t -> new NewTopic(t, Optional.of(4), Optional.empty()).configs(Topics.compacted(t)
                            ? Map.of("cleanup.policy", "compact") : Map.of())).toList();
            if (!missing.isEmpty()) {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            }
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new ConfigurationError("cannot create topics on Kafka at " + settings.kafkaBootstrap() + ": "
                        + e.getCause().getMessage(), e);
            }
        } catch (TimeoutException e) {
            throw new ConfigurationError("Kafka at " + settings.kafkaBootstrap() + " does not answer", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new ConfigurationError("interrupted while creating topics", e);
        }
    }

    /** PostgreSQL and Kafka answer now (each within about a second). */
    Map<String, Boolean> readiness() {
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

    @Override
    public void close() {
        gauges.close();
        if (admin != null) {
            admin.close(Duration.ofSeconds(2));
        }
        dataSource.close();
    }
}
