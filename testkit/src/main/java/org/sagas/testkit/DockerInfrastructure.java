package org.sagas.testkit;

import java.sql.DriverManager;
import java.sql.SQLException;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.embedded.KafkaBroker;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.postgresql.PostgreSQLContainer;

/** PostgreSQL 16 and Apache Kafka in containers, when a Docker engine is reachable. */
final class DockerInfrastructure extends Infrastructure {
    private final PostgreSQLContainer postgres = new PostgreSQLContainer("postgres:16")
            .withCommand("postgres", "-c", "max_connections=300", "-c", "wal_level=logical");
    private final KafkaContainer kafka = new KafkaContainer("apache/kafka:4.1.0");

    DockerInfrastructure() {
        postgres.start();
        kafka.start();
    }

    static boolean available() {
        if ("false".equals(System.getenv("SAGA_TEST_DOCKER"))) {
            return false;
        }
        try {
            return DockerClientFactory.instance().isDockerAvailable();
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
    }

    @Override
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + postgres.getHost() + ":" + postgres.getMappedPort(5432) + "/" + database;
    }

    @Override
    public String user() {
        return postgres.getUsername();
    }

    @Override
    public String password() {
        return postgres.getPassword();
    }

    @Override
    public String bootstrapServers() {
        return kafka.getBootstrapServers();
    }

    @Override
    public void createDatabase(String database) {
        try (var c = DriverManager.getConnection(jdbcUrl("postgres"), user(), password());
                var s = c.createStatement()) {
            s.execute("CREATE DATABASE \"" + database.replace("\"", "") + "\"");
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + database, e);
        }
    }

    @Override
    public KafkaBroker broker() {
        return null;
    }

    @Override
    public EmbeddedPostgresServer postgres() {
        return null;
    }

    @Override
    public void restartPostgres() {
        throw new UnsupportedOperationException("restart is only supported on the embedded PostgreSQL");
    }

    @Override
    void stop() {
        kafka.stop();
        postgres.stop();
    }
}
