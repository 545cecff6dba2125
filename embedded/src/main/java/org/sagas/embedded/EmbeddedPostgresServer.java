package org.sagas.embedded;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

/**
 * A real PostgreSQL server from zonky's binaries, its own process, its log in the data directory.
 *
 * <p>{@link #close()} stops the server (fast shutdown). Not thread-safe: start and stop from one
 * thread. Throws {@link UncheckedIOException} when the server cannot be started.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
    public static final String USER = "postgres";
    public static final String PASSWORD = "postgres";

    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres, Path dataDirectory) {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
    }

    /**
     * Starts PostgreSQL with its data in {@code dataDirectory} (kept between runs) on {@code port}
     * (0 picks a free one). Server output goes to {@code postgres.log} beside the data directory.
     */
    public static EmbeddedPostgresServer start(Path dataDirectory, int port) {
        return start(dataDirectory, port, Map.of());
    }

    /**
     * As {@link #start(Path, int)}, with {@code serverConfig} added to the server's settings (for
     * example {@code shared_preload_libraries = pg_stat_statements} for a benchmark's accounting).
     */
    public static EmbeddedPostgresServer start(Path dataDirectory, int port, Map<String, String> serverConfig) {
        try {
            Files.createDirectories(dataDirectory.getParent());
            Path log = dataDirectory.resolveSibling("postgres.log");
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
            serverConfig.forEach(builder::setServerConfig);
            EmbeddedPostgres pg = builder
                    .setPgBinaryResolver(new RootSafeBinaryResolver())
                    .setDataDirectory(dataDirectory)
                    .setCleanDataDirectory(false)
                    .setRegisterShutdownHook(false)
                    .setPort(port == 0 ? FreePorts.find() : port)
                    .setPGStartupWait(Duration.ofSeconds(60))
                    .setServerConfig("max_connections", "300")
                    .setServerConfig("shared_buffers", "256MB")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("listen_addresses", "127.0.0.1")
                    .setServerConfig("unix_socket_directories", "")
                    .setServerConfig("fsync", "on")
                    .setServerConfig("wal_level", "logical")
                    .setServerConfig("max_replication_slots", "4")
                    .setServerConfig("max_wal_senders", "4")
                    .setOutputRedirector(Redirect.appendTo(log.toFile()))
                    .setErrorRedirector(Redirect.appendTo(log.toFile()))
                    .start();
            return new EmbeddedPostgresServer(pg, dataDirectory);
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not start in " + dataDirectory
                    + " (see postgres.log beside it): " + e.getMessage(), e);
        }
    }

    public int port() {
        return postgres.getPort();
    }

    public String jdbcUrl(String database) {
        return "jdbc:postgresql://127.0.0.1:" + port() + "/" + database;
    }

    public Path dataDirectory() {
        return dataDirectory;
    }

    /** Creates {@code database} unless it exists. */
    public void createDatabase(String database) {
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            var rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + database.replace("'", "''") + "'");
            if (!rs.next()) {
                s.execute("CREATE DATABASE \"" + database.replace("\"", "") + "\"");
            }
        } catch (SQLException e) {
            throw new IllegalStateException("could not create database " + database + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void close() {
        try {
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not stop cleanly", e);
        }
    }
}
