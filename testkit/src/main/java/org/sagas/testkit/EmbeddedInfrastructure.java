package org.sagas.testkit;

import java.nio.file.Path;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.embedded.KafkaBroker;
import org.sagas.embedded.ScratchDirectory;

/** The embedded PostgreSQL and KRaft broker, in processes of their own. */
final class EmbeddedInfrastructure extends Infrastructure {
    private final ScratchDirectory scratch;
    private final Path directory;
    private EmbeddedPostgresServer postgres;
    private final KafkaBroker broker;

    /**
     * Starts both servers in {@code scratch}, which is deleted when they stop: side by side, each in
     * its own process, so a test JVM waits for the slower of the two rather than their sum.
     */
    EmbeddedInfrastructure(ScratchDirectory scratch) {
        this.scratch = scratch;
        this.directory = scratch.path();
        KafkaBroker kafka = new KafkaBroker(directory.resolve("kafka"), 0);
        CompletableFuture<KafkaBroker> started = CompletableFuture.supplyAsync(kafka::start, r -> {
            Thread t = new Thread(r, "test-kafka-start");
            t.setDaemon(true);
            t.start();
        });
        try {
            this.postgres = EmbeddedPostgresServer.start(directory.resolve("pg").resolve("data"), 0);
        } catch (RuntimeException e) {
            // Nothing else would stop the broker: the shutdown hook is not registered yet.
            started.handle((b, failure) -> b).join();
            kafka.stop();
            scratch.close();
            throw e;
        }
        try {
            this.broker = started.join();
        } catch (CompletionException e) {
            postgres.close(); // nothing else would stop it: the shutdown hook is not registered yet
            scratch.close();
            throw e.getCause() instanceof RuntimeException r ? r : e;
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
