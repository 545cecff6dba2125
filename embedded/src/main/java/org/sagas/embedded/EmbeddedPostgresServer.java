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
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.sagas.embedded.Leftover.Signal;
import org.sagas.embedded.Leftover.Step;

/**
 * A real PostgreSQL server from zonky's binaries, its own process, its log in the data directory.
 *
 * <p>The server does not outlive this JVM: a {@link PostmasterReaper} asks it for a fast shutdown
 * when the JVM dies without closing it. While it runs, this JVM holds {@code postgres.owner}
 * beside the data directory ({@link OwnerLock}); a start that can take that lock ends a server a
 * dead owner left running there (ADR 0013). {@link #close()} stops the server (fast shutdown) and
 * waits for it to end. Not thread-safe: start and stop from one thread. Throws
 * {@link UncheckedIOException} when the server cannot be started.
 */
public final class EmbeddedPostgresServer implements AutoCloseable {
    public static final String USER = "postgres";
    /**
     * What a client of a server that never had {@link #requirePassword} called sends (the tests'
     * and benchmarks' throw-away servers): those trust loopback connections and ignore it.
     */
    public static final String PASSWORD = "postgres";
    /** Loopback clients may connect without a password: zonky's start checks readiness so. */
    private static final String TRUST_HBA = "# written by sagas at each start; see EmbeddedPostgresServer\n"
            + "host all all 127.0.0.1/32 trust\nhost all all ::1/128 trust\n";
    /** Every client must give the password (SCRAM), the superuser included. */
    private static final String PASSWORD_HBA = "# written by sagas once the server is up; see EmbeddedPostgresServer\n"
            + "host all all 127.0.0.1/32 scram-sha-256\nhost all all ::1/128 scram-sha-256\n";
    /** Fast shutdown (may write a checkpoint), then immediate shutdown, then SIGKILL to the server and its children. */
    private static final List<Step> END_LEFTOVER = List.of(new Step(Signal.INT, Duration.ofSeconds(60)),
            new Step(Signal.QUIT, Duration.ofSeconds(15)), new Step(Signal.KILL, Duration.ofSeconds(15)));
    private static final Duration STOP_WAIT = Duration.ofSeconds(60);

    private final EmbeddedPostgres postgres;
    private final Path dataDirectory;
    private final long pid;
    private final PostmasterReaper reaper;
    private final OwnerLock owner;

    private EmbeddedPostgresServer(EmbeddedPostgres postgres, Path dataDirectory, long pid, PostmasterReaper reaper,
            OwnerLock owner) {
        this.postgres = postgres;
        this.dataDirectory = dataDirectory;
        this.pid = pid;
        this.reaper = reaper;
        this.owner = owner;
    }

    /**
     * Starts PostgreSQL with its data in {@code dataDirectory} (kept between runs) on {@code port}
     * (0 picks a free one). Server output goes to {@code postgres.log} beside the data directory. A
     * server left running there by a process that died is ended first.
     *
     * @throws DataDirectoryInUseException when a live process (this JVM included) runs a server there
     */
    public static EmbeddedPostgresServer start(Path dataDirectory, int port) {
        return start(dataDirectory, port, Map.of());
    }

    /**
     * As {@link #start(Path, int)}, with {@code serverConfig} added to the server's settings (for
     * example {@code shared_preload_libraries = pg_stat_statements} for a benchmark's accounting).
     */
    public static EmbeddedPostgresServer start(Path dataDirectory, int port, Map<String, String> serverConfig) {
        Path data = dataDirectory.toAbsolutePath().normalize();
        OwnerLock owner = OwnerLock.acquire(data.resolveSibling("postgres.owner"), data);
        try {
            endLeftover(data);
            allowStartup(data);
            EmbeddedPostgres pg = launch(data, port, serverConfig);
            long pid = Leftover.pidIn(data.resolve("postmaster.pid")).orElseThrow(() -> new IllegalStateException(
                    "PostgreSQL started in " + data + " but wrote no postmaster.pid"));
            return new EmbeddedPostgresServer(pg, data, pid, PostmasterReaper.watch(pid, data), owner);
        } catch (RuntimeException e) {
            try {
                endLeftover(data); // never leave a half-started server behind
            } catch (RuntimeException stillRunning) {
                e.addSuppressed(stillRunning);
            }
            owner.close();
            throw e;
        }
    }

    /**
     * A data directory a {@link #requirePassword} run left asks for the password, which zonky's own
     * readiness check (user postgres, no password) cannot give: loopback trust until the server is
     * up and the caller requires the password again. Nothing else listens meanwhile: the server
     * binds 127.0.0.1 only and has no Unix socket.
     */
    private static void allowStartup(Path data) {
        Path hba = data.resolve("pg_hba.conf");
        if (Files.exists(hba)) {
            try {
                Files.writeString(hba, TRUST_HBA);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + hba, e);
            }
        }
    }

    /**
     * From now on every connection must give {@code password} (SCRAM), the superuser's included:
     * sets it on {@link #USER}, writes a {@code pg_hba.conf} that asks for it and reloads. Call it
     * after each start (and after {@link #createDatabase}, which connects without one).
     *
     * @throws IllegalStateException if the server refuses
     */
    public void requirePassword(String password) {
        if (password == null || password.isEmpty()) {
            throw new IllegalArgumentException("an empty password protects nothing");
        }
        Path hba = dataDirectory.resolve("pg_hba.conf");
        try (Connection c = postgres.getPostgresDatabase().getConnection(); Statement s = c.createStatement()) {
            s.execute("ALTER ROLE " + USER + " PASSWORD '" + password.replace("'", "''") + "'");
            Files.writeString(hba, PASSWORD_HBA);
            s.execute("SELECT pg_reload_conf()");
        } catch (SQLException | IOException e) {
            throw new IllegalStateException("could not require a password on PostgreSQL in " + dataDirectory + ": "
                    + e.getMessage(), e);
        }
    }

    /** Ends a postmaster of {@code data} whose owner died; only called under the directory's owner lock. */
    private static void endLeftover(Path data) {
        Leftover.end(data.resolve("postmaster.pid"), "PostgreSQL of " + data, argv -> isPostmasterOf(argv, data),
                END_LEFTOVER);
    }

    /** {@code …/postgres -D <data> …}: the command pg_ctl runs. */
    static boolean isPostmasterOf(List<String> argv, Path data) {
        String program = argv.isEmpty() ? "" : argv.get(0).substring(argv.get(0).lastIndexOf('/') + 1);
        if (!program.equals("postgres") && !program.equals("postmaster")) {
            return false;
        }
        int d = argv.indexOf("-D");
        return d >= 0 && d + 1 < argv.size() && Leftover.sameFile(argv.get(d + 1), data);
    }

    private static EmbeddedPostgres launch(Path dataDirectory, int port, Map<String, String> serverConfig) {
        try {
            Files.createDirectories(dataDirectory.getParent());
            Path log = dataDirectory.resolveSibling("postgres.log");
            EmbeddedPostgres.Builder builder = EmbeddedPostgres.builder();
            serverConfig.forEach(builder::setServerConfig);
            return builder
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

    /** The postmaster's process id. */
    public long pid() {
        return pid;
    }

    @Override
    public void close() {
        try {
            postgres.close();
            awaitEnd(); // pg_ctl gives up waiting after 5 s; the server may still be writing its checkpoint
        } catch (IOException e) {
            throw new UncheckedIOException("embedded PostgreSQL did not stop cleanly", e);
        } finally {
            reaper.close();
            owner.close();
        }
    }

    /**
     * Ends the server as a crash would: immediate shutdown (SIGQUIT to the postmaster), no
     * checkpoint, so the next {@link #start} on this data directory runs crash recovery.
     */
    public void crash() {
        try {
            Process quit = new ProcessBuilder("kill", "-QUIT", Long.toString(pid)).redirectErrorStream(true).start();
            quit.waitFor(10, TimeUnit.SECONDS);
            awaitEnd();
            // zonky holds a lock on the data directory (epg-lock) until it is closed; left held, the
            // next start in this JVM fails on it. Its pg_ctl stop finds no server and logs so.
            postgres.close();
        } catch (IOException e) {
            throw new UncheckedIOException("could not signal PostgreSQL (pid " + pid + ")", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            reaper.close();
            owner.close();
        }
    }

    private void awaitEnd() {
        ProcessHandle.of(pid).ifPresent(p -> {
            try {
                p.onExit().get(STOP_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            } catch (TimeoutException | ExecutionException e) {
                throw new IllegalStateException("PostgreSQL (pid " + pid + ") still runs " + STOP_WAIT.toSeconds()
                        + " s after it was asked to stop", e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
    }
}
