package org.sagas.testkit;

import java.nio.file.Path;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.embedded.KafkaBroker;
import org.sagas.embedded.ScratchDirectory;

/** The embedded PostgreSQL and KRaft broker, in processes of their own. */
final class EmbeddedInfrastructure extends Infrastructure {
    private final ScratchDirectory scratch;
    private final Path directory;
    private EmbeddedPostgresServer postgres;
    private final KafkaBroker broker;

    /** Starts both servers in {@code scratch}, which is deleted when they stop. */
    EmbeddedInfrastructure(ScratchDirectory scratch) {
        this.scratch = scratch;
        this.directory = scratch.path();
        this.postgres = EmbeddedPostgresServer.start(directory.resolve("pg").resolve("data"), 0);
        try {
            this.broker = new KafkaBroker(directory.resolve("kafka"), 0).start();
        } catch (RuntimeException e) {
            postgres.close(); // nothing else would stop it: the shutdown hook is not registered yet
            scratch.close();
            throw e;
        }
    }

    @Override
    public String jdbcUrl(String database) {
        return postgres.jdbcUrl(database);
    }

    @Override
    public String user() {
        return EmbeddedPostgresServer.USER;
    }

    @Override
    public String password() {
        return EmbeddedPostgresServer.PASSWORD;
    }

    @Override
    public String bootstrapServers() {
        return broker.bootstrapServers();
    }

    @Override
    public void createDatabase(String database) {
        postgres.createDatabase(database);
    }

    @Override
    public KafkaBroker broker() {
        return broker;
    }

    @Override
    public EmbeddedPostgresServer postgres() {
        return postgres;
    }

    @Override
    public synchronized void restartPostgres() {
        int port = postgres.port();
        postgres.close();
        postgres = EmbeddedPostgresServer.start(directory.resolve("pg").resolve("data"), port);
    }

    @Override
    synchronized void stop() {
        broker.stop();
        postgres.close();
        scratch.close();
    }
}
