package org.sagas.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.kafka.clients.admin.Admin;
import org.sagas.embedded.DataDirectoryInUseException;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.embedded.ScratchDirectory;
import org.sagas.embedded.FreePorts;
import org.sagas.embedded.KafkaBroker;
import org.sagas.embedded.KafkaCluster;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default: a PostgreSQL server and a KRaft broker under one data directory, each in
 * a process of its own, stopped by {@link #close()}. Not thread-safe.
 */
public final class EmbeddedStack implements AutoCloseable {
    static final String DATABASE = "sagas";
    /** The embedded PostgreSQL's password, under {@code <data dir>/postgres/}. */
    static final String PASSWORD_FILE = "password";
    private static final Logger log = LoggerFactory.getLogger(EmbeddedStack.class);

    private final Path dataDir;
    private EmbeddedPostgresServer postgres;
    private KafkaBroker broker;
    /** With {@link #withBrokers} more than one: the brokers, instead of {@link #broker}. */
    private KafkaCluster cluster;
    private int brokers = 1;
    /** With {@link #withKafkaSignIn}: the brokers' super user's password; null: PLAINTEXT brokers. */
    private String kafkaSuperPassword;
    private String postgresPassword;
    private final ScratchDirectory scratch;
    private java.util.Map<String, String> postgresConfig = java.util.Map.of();

    EmbeddedStack(Path dataDir) {
        this(dataDir, null);
    }

    private EmbeddedStack(Path dataDir, ScratchDirectory scratch) {
        this.dataDir = dataDir;
        this.scratch = scratch;
    }

    /** On a fresh temporary directory, deleted when the stack is closed. */
    public static EmbeddedStack scratch() {
        ScratchDirectory dir = ScratchDirectory.create("sagas-");
        return new EmbeddedStack(dir.path(), dir);
    }

    public Path dataDir() {
        return dataDir;
    }

    /**
     * Loads {@code pg_stat_statements} into the embedded PostgreSQL (before {@link #start}), so a
     * benchmark can tell each database's WAL apart; it costs the server a little per statement.
     */
    public EmbeddedStack withStatementStatistics() {
        postgresConfig = java.util.Map.of("shared_preload_libraries", "pg_stat_statements");
        return this;
    }

    /**
     * Runs {@code count} brokers as one replicated KRaft cluster instead of a single broker
     * (before {@link #start}); see {@link KafkaCluster}.
     */
    EmbeddedStack withBrokers(int count) {
        this.brokers = count;
        return this;
    }

    /**
     * Makes the broker or brokers authenticate and authorize every client (before {@link #start}),
     * as {@link KafkaBroker#secured} does; the settings {@link #start} returns then sign in as their
     * super user. {@code ./sagas up} leaves its loopback broker open (docs/security.md).
     */
    EmbeddedStack withKafkaSignIn(String superUserPassword) {
        this.kafkaSuperPassword = superUserPassword;
        return this;
    }

    /** The cluster's brokers; null unless {@link #withBrokers} asked for more than one. */
    KafkaCluster cluster() {
        return cluster;
    }

    /**
     * Stops PostgreSQL, as an operator's restart or a crash would ({@code abrupt}: immediate
     * shutdown, no checkpoint), and starts it again on the same port and data.
     */
    void restartPostgres(boolean abrupt) {
        int port = postgres.port();
        if (abrupt) {
            postgres.crash();
        } else {
            postgres.close();
        }
        postgres = EmbeddedPostgresServer.start(dataDir.resolve("postgres").resolve("data"), port, postgresConfig);
        postgres.requirePassword(postgresPassword);
    }

    /** The embedded broker's process id, or -1 without one. */
    public long brokerPid() {
        return broker == null ? -1 : broker.pid();
    }

    /**
     * Starts the servers asked for. Servers a crashed run left in the data directory are ended
     * first (ADR 0013); a data directory another live {@code ./sagas} uses is refused.
     */
    public Settings start(Settings settings, boolean database, boolean kafka) {
        try {
            Files.createDirectories(dataDir);
        } catch (IOException e) {
            throw new ConfigurationError("cannot create data directory " + dataDir + ": " + e.getMessage(), e);
        }
        try {
            return startServers(settings, database, kafka);
        } catch (DataDirectoryInUseException e) {
            throw new ConfigurationError("data directory " + dataDir + " is in use by another running sagas ("
                    + e.holder() + "): stop it, or choose another --data-dir", e);
        }
    }

    private Settings startServers(Settings settings, boolean database, boolean kafka) {
        String url = settings.dbUrl();
        String user = settings.dbUser();
        String password = settings.dbPassword();
        String bootstrap = settings.kafkaBootstrap();
        // The broker starts beside PostgreSQL, each in its own process: a cold start waits for the
        // slower of the two instead of their sum.
        CompletableFuture<String> kafkaStarted = kafka ? CompletableFuture.supplyAsync(this::startKafka, r -> {
            Thread t = new Thread(r, "kafka-start");
            t.setDaemon(true);
            t.start();
        }) : null;
        RuntimeException failed = null;
        if (database) {
            try {
                postgres = EmbeddedPostgresServer.start(dataDir.resolve("postgres").resolve("data"), 0,
                        postgresConfig);
                postgres.createDatabase(DATABASE);
                // A password of this data directory's own, kept beside the data (mode 600) for the next start.
                password = GeneratedSecret.ensure(dataDir.resolve("postgres").resolve(PASSWORD_FILE),
                        "SAGA_DB_URL for a PostgreSQL of your own");
                postgres.requirePassword(password);
                postgresPassword = password;
                url = postgres.jdbcUrl(DATABASE);
                user = EmbeddedPostgresServer.USER;
                log.info("embedded PostgreSQL on port {} (log {})", postgres.port(), dataDir.resolve("postgres")
                        .resolve("postgres.log"));
            } catch (RuntimeException e) {
                failed = e;
            }
        }
        if (kafkaStarted != null) {
            try {
                bootstrap = kafkaStarted.join(); // whatever PostgreSQL did: close() must find the broker it started
            } catch (CompletionException e) {
                RuntimeException cause = e.getCause() instanceof RuntimeException r ? r
                        : new IllegalStateException(e.getCause());
                if (failed == null) {
                    failed = cause;
                } else {
                    failed.addSuppressed(cause);
                }
            }
        }
        if (failed != null) {
            throw failed;
        }
        Settings started = settings.withInfrastructure(url, user, password, bootstrap);
        if (kafka && kafkaSuperPassword != null) {
            started = started.with(Settings.KAFKA_USER.name(), KafkaBroker.SUPER_USER)
                    .with(Settings.KAFKA_PASSWORD.name(), kafkaSuperPassword)
                    .with(Settings.KAFKA_PASSWORD_FILE.name(), "");
        }
        return started;
    }

    /** Starts the broker (or cluster), creates the product's topics; its bootstrap servers. */
    private String startKafka() {
        Map<String, Object> superUser;
        String bootstrap;
        if (brokers > 1) {
            cluster = KafkaCluster.of(dataDir.resolve("kafka"), brokers);
            if (kafkaSuperPassword != null) {
                cluster.secured(kafkaSuperPassword);
            }
            bootstrap = cluster.start().bootstrapServers();
            superUser = cluster.superUserConfig();
        } else {
            broker = new KafkaBroker(dataDir.resolve("kafka"), FreePorts.find());
            if (kafkaSuperPassword != null) {
                broker.secured(kafkaSuperPassword);
            }
            bootstrap = broker.start().bootstrapServers();
            superUser = broker.superUserConfig();
        }
        // Our own broker: its topics follow the product's settings, including those an older
        // version created with the broker's default retention (as long as the inbox's).
        Map<String, Object> admin = new java.util.HashMap<>(superUser);
        admin.put("bootstrap.servers", bootstrap);
        try (Admin client = Admin.create(admin)) {
            Node.ensureTopics(client, bootstrap);
            Node.applyTopicConfigs(client, bootstrap);
        }
        return bootstrap;
    }

    @Override
    public void close() {
        if (cluster != null) {
            try {
                cluster.close();
            } catch (RuntimeException e) {
                log.warn("Kafka cluster did not stop cleanly: {}", e.toString());
            }
        }
        if (broker != null) {
            try {
                broker.stop();
            } catch (RuntimeException e) {
                log.warn("Kafka broker did not stop cleanly: {}", e.toString());
            }
        }
        if (postgres != null) {
            try {
                postgres.close();
            } catch (RuntimeException e) {
                log.warn("PostgreSQL did not stop cleanly: {}", e.toString());
            }
        }
        if (scratch != null) {
            scratch.close();
        }
    }
}
