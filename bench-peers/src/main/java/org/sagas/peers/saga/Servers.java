package org.sagas.peers.saga;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.embedded.KafkaBroker;
import org.sagas.embedded.ScratchDirectory;

/**
 * The servers of one run, the product's own embedded ones: the PostgreSQL every contender runs on
 * (a database each), a second PostgreSQL for the sandbox services (so that the engines' server
 * counts only the engines' work: transactions, rows, WAL and CPU), and the Kafka broker (only the
 * product uses it). Stopped, and their scratch directory deleted, by {@link #close()}.
 */
final class Servers implements AutoCloseable {
    private final AtomicBoolean closed = new AtomicBoolean();
    private final ScratchDirectory scratch;
    final EmbeddedPostgresServer engines;
    final EmbeddedPostgresServer participants;
    final KafkaBroker broker;

    private Servers(ScratchDirectory scratch, EmbeddedPostgresServer engines, EmbeddedPostgresServer participants,
            KafkaBroker broker) {
        this.scratch = scratch;
        this.engines = engines;
        this.participants = participants;
        this.broker = broker;
    }

    /**
     * Starts all three. The broker is a child JVM on this JVM's class path, which must then be the
     * product's (Kafka 4.4): {@code brokerClassPath} stands in for it while the broker starts.
     */
    static Servers start(String brokerClassPath) {
        ScratchDirectory scratch = ScratchDirectory.create("saga-peers-");
        EmbeddedPostgresServer engines = null;
        EmbeddedPostgresServer participants = null;
        try {
            engines = EmbeddedPostgresServer.start(scratch.path().resolve("pg-engines").resolve("data"), 0);
            participants = EmbeddedPostgresServer.start(scratch.path().resolve("pg-sandbox").resolve("data"), 0);
            String own = System.getProperty("java.class.path");
            System.setProperty("java.class.path", brokerClassPath);
            KafkaBroker broker;
            try {
                broker = new KafkaBroker(scratch.path().resolve("kafka"), 0).start();
            } finally {
                System.setProperty("java.class.path", own);
            }
            // A broker that just started can take seconds to answer its first metadata request; the
            // product gives its admin client 2 s, so the broker answers one before the product starts.
            broker.createTopics(List.of(WarmUp.TOPIC), 1);
            return new Servers(scratch, engines, participants, broker);
        } catch (RuntimeException e) {
            if (participants != null) {
                participants.close();
            }
            if (engines != null) {
                engines.close();
            }
            scratch.close();
            throw e;
        }
    }

    /** A connection of the benchmark's own, named so that it is never counted as an engine's. */
    static Connection connect(EmbeddedPostgresServer server, String database) throws SQLException {
        return DriverManager.getConnection(server.jdbcUrl(database) + "?ApplicationName=" + Contender.HARNESS,
                EmbeddedPostgresServer.USER, EmbeddedPostgresServer.PASSWORD);
    }

    /** Drops {@code database} if a previous run left it, and creates it empty. */
    void freshDatabase(EmbeddedPostgresServer server, String database) throws SQLException {
        try (Connection c = connect(server, "postgres"); Statement s = c.createStatement()) {
            s.execute("DROP DATABASE IF EXISTS \"" + database + "\" WITH (FORCE)");
        }
        server.createDatabase(database);
    }

    /** The server setting {@code name}, as the engines' server has it. */
    String setting(String name) throws SQLException {
        try (Connection c = connect(engines, "postgres"); Statement s = c.createStatement();
                var rs = s.executeQuery("SELECT current_setting('" + name + "')")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /** Stops everything; a second call (the shutdown hook after a normal end) does nothing. */
    @Override
    public void close() {
        if (closed.getAndSet(true)) {
            return;
        }
        try {
            broker.stop();
        } finally {
            try {
                participants.close();
            } finally {
                try {
                    engines.close();
                } finally {
                    scratch.close();
                }
            }
        }
    }
}
