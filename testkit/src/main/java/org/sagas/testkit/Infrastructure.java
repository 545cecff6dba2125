package org.sagas.testkit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.embedded.KafkaBroker;
import org.sagas.embedded.ScratchDirectory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The PostgreSQL server and Kafka broker that integration tests share, started once per test JVM
 * and stopped when it exits.
 *
 * <p>Testcontainers ({@code postgres:16}, {@code apache/kafka}) when a Docker engine is reachable,
 * otherwise the embedded pair the product itself runs on. Thread-safe.
 */
public abstract class Infrastructure {
    private static final Logger log = LoggerFactory.getLogger(Infrastructure.class);
    private static Infrastructure shared;

    /** The shared instance, started on first use. */
    public static synchronized Infrastructure get() {
        if (shared == null) {
            shared = DockerInfrastructure.available() ? new DockerInfrastructure() : startEmbedded();
            Runtime.getRuntime().addShutdownHook(new Thread(shared::stop, "test-infrastructure-stop"));
        }
        return shared;
    }

    private static Infrastructure startEmbedded() {
        ScratchDirectory dir = ScratchDirectory.create("sagas-test-");
        log.info("test infrastructure: embedded PostgreSQL and Kafka under {}", dir.path());
        return new EmbeddedInfrastructure(dir);
    }

    /** JDBC URL of {@code database} on the shared server. */
    public abstract String jdbcUrl(String database);

    public abstract String user();

    public abstract String password();

    public abstract String bootstrapServers();

    /** Creates an empty database for one test class. */
    public abstract void createDatabase(String database);

    /** Creates {@code database} and a pool of at most {@code maxConnections} to it; the caller closes it. */
    public HikariDataSource newDatabase(String database, int maxConnections) {
        createDatabase(database);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(jdbcUrl(database));
        config.setUsername(user());
        config.setPassword(password());
        config.setMaximumPoolSize(maxConnections);
        return new HikariDataSource(config);
    }

    /** The embedded broker, for tests that stop and restart it; null under Testcontainers. */
    public abstract KafkaBroker broker();

    /** The embedded PostgreSQL, for tests that restart it; null under Testcontainers. */
    public abstract EmbeddedPostgresServer postgres();

    /** Restarts PostgreSQL on the same port and data (embedded only). */
    public abstract void restartPostgres();

    abstract void stop();
}
