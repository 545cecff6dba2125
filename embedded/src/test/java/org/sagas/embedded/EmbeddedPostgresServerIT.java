package org.sagas.embedded;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL does not outlive the process that started it, and a start on a data directory ends
 * a server a dead owner left there, never a live owner's and never a process a stale pid names.
 */
class EmbeddedPostgresServerIT {
    private static final Duration STARTED_WITHIN = Duration.ofSeconds(120);

    private final ScratchDirectory scratch = ScratchDirectory.create("sagas-pg-test-");
    private final Path data = scratch.path().resolve("pg").resolve("data");
    private ChildJvm owner;

    @AfterEach
    void leaveNothingRunning() {
        if (owner != null) {
            owner.process.destroyForcibly();
        }
        List<ProcessHandle> left = ChildJvm.processesNaming(scratch.path());
        left.forEach(ProcessHandle::destroy); // PostgreSQL: smart shutdown, its clients are gone
        try {
            await().atMost(Duration.ofSeconds(60)).until(() -> left.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            left.forEach(p -> {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            });
            scratch.close();
        }
    }

    @Test
    void shouldStopPostgresWhenTheProcessThatStartedItIsKilled() {
        // Given PostgreSQL started by another JVM
        owner = ChildJvm.start(OwnPostgres.class, data.toString());
        long postmaster = awaitPostmaster(owner);

        // When that JVM is killed (SIGKILL: none of its code runs)
        owner.process.destroyForcibly();

        // Then the server ends too
        await().atMost(Duration.ofSeconds(60)).until(() -> !alive(postmaster));
        assertThat(data.resolve("postmaster.pid")).doesNotExist();
    }

    @Test
    void shouldEndAServerItsDeadOwnerLeftAndStartOnTheSameData() throws Exception {
        // Given PostgreSQL whose owner died with the watch that would have stopped it
        owner = ChildJvm.start(OwnPostgres.class, data.toString());
        long postmaster = awaitPostmaster(owner);
        owner.process.descendants().filter(p -> p.info().commandLine().orElse("").contains(PostmasterReaper.NAME))
                .forEach(ProcessHandle::destroyForcibly);
        owner.process.destroyForcibly();
        owner.process.waitFor();
        assertThat(alive(postmaster)).as("server left running").isTrue();

        // When a new owner starts PostgreSQL on the same data directory
        long restarted;
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(data, 0)) {
            restarted = server.pid();

            // Then the leftover server was ended, and the new one serves the same data
            assertThat(alive(postmaster)).isFalse();
            assertThat(restarted).isNotEqualTo(postmaster);
            try (Connection c = DriverManager.getConnection(server.jdbcUrl("kept"), EmbeddedPostgresServer.USER,
                    EmbeddedPostgresServer.PASSWORD)) {
                assertThat(c.isValid(5)).isTrue();
            }
        }
        assertThat(alive(restarted)).as("server after close").isFalse();
    }

    @Test
    void shouldRefuseADataDirectoryALiveOwnerUsesAndLeaveItsServerAlone() {
        // Given PostgreSQL run by another, live, JVM
        owner = ChildJvm.start(OwnPostgres.class, data.toString());
        long postmaster = awaitPostmaster(owner);

        // When this JVM starts PostgreSQL on the same data directory, it is refused, naming the owner
        assertThatThrownBy(() -> EmbeddedPostgresServer.start(data, 0))
                .isInstanceOf(DataDirectoryInUseException.class)
                .hasMessageContaining("pid " + owner.process.pid());

        // And the owner's server still runs
        assertThat(alive(postmaster)).isTrue();
    }

    @Test
    void shouldStartOverAStalePidFileWithoutSignallingTheProcessItNames() throws Exception {
        // Given an initialised data directory whose postmaster.pid names a live process that is not PostgreSQL
        EmbeddedPostgresServer.start(data, 0).close();
        Process bystander = new ProcessBuilder("sleep", "600").start();
        try {
            Files.writeString(data.resolve("postmaster.pid"), bystander.pid() + "\n" + data + "\n",
                    StandardCharsets.UTF_8);

            // When PostgreSQL starts there, it starts, and the process the file named is untouched
            try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(data, 0)) {
                assertThat(server.pid()).isNotEqualTo(bystander.pid());
                assertThat(alive(server.pid())).isTrue();
            }
            assertThat(bystander.isAlive()).isTrue();
        } finally {
            bystander.destroyForcibly();
        }
    }

    @Test
    void shouldStartAgainInTheSameJvmAfterACrash() throws Exception {
        // Given PostgreSQL of this JVM ended as a crash would (chaos's RESTART_POSTGRES)
        EmbeddedPostgresServer crashed = EmbeddedPostgresServer.start(data, 0);
        int port = crashed.port();
        crashed.crash();
        assertThat(alive(crashed.pid())).isFalse();

        // When this JVM starts it again on the same port and data, it recovers and serves
        try (EmbeddedPostgresServer server = EmbeddedPostgresServer.start(data, port)) {
            try (Connection c = DriverManager.getConnection(server.jdbcUrl("postgres"), EmbeddedPostgresServer.USER,
                    EmbeddedPostgresServer.PASSWORD)) {
                assertThat(c.isValid(5)).isTrue();
            }
        }
    }

    private static long awaitPostmaster(ChildJvm child) {
        await().atMost(STARTED_WITHIN).until(() -> child.printed("postmaster ") != null || !child.process.isAlive());
        assertThat(child.process.isAlive()).as("child output: %s", child.output).isTrue();
        return Long.parseLong(child.printed("postmaster ").strip());
    }

    private static boolean alive(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false);
    }
}
