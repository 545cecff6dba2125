package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.sagas.embedded.EmbeddedPostgresServer;
import org.sagas.embedded.ScratchDirectory;

/**
 * The embedded PostgreSQL of {@code ./sagas up} (docs/security.md): a password of its data
 * directory's own, kept there readable by its owner only, asked of every client — the fixed
 * {@code postgres} and no password at all are refused — and the same after a restart on that
 * directory ({@code --data-dir}).
 */
class EmbeddedPasswordIT {
    /** PostgreSQL's SQLSTATE for a failed password authentication. */
    private static final String INVALID_PASSWORD = "28P01";

    @Test
    void shouldAskEveryClientForThePasswordOfItsDataDirectoryAcrossARestart() throws Exception {
        try (ScratchDirectory dir = ScratchDirectory.create("sagas-password-")) {
            Settings settings = Settings.from(name -> null, Map.of());
            String first;
            // Given ./sagas up's embedded PostgreSQL on a data directory of its own
            try (EmbeddedStack stack = new EmbeddedStack(dir.path())) {
                Settings running = stack.start(settings, true, false);
                first = running.dbPassword();
                // Then the product's settings carry a generated password, kept owner-only in the directory
                Path file = dir.path().resolve("postgres").resolve(EmbeddedStack.PASSWORD_FILE);
                assertThat(first).isNotEqualTo(EmbeddedPostgresServer.PASSWORD).hasSizeGreaterThanOrEqualTo(32);
                assertThat(Files.readString(file).strip()).isEqualTo(first);
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file))).isEqualTo("rw-------");
                // And it opens the database, while the old fixed password and none at all are refused
                assertConnects(running.dbUrl(), running.dbUser(), first);
                assertRefused(running.dbUrl(), running.dbUser(), EmbeddedPostgresServer.PASSWORD);
                assertRefused(running.dbUrl(), running.dbUser(), "");
            }
            // When it starts again on the same directory
            try (EmbeddedStack again = new EmbeddedStack(dir.path())) {
                Settings running = again.start(settings, true, false);
                // Then it keeps its password and still asks for it
                assertThat(running.dbPassword()).isEqualTo(first);
                assertConnects(running.dbUrl(), running.dbUser(), first);
                assertRefused(running.dbUrl(), running.dbUser(), EmbeddedPostgresServer.PASSWORD);
            }
        }
    }

    private static void assertConnects(String url, String user, String password) throws SQLException {
        try (Connection c = DriverManager.getConnection(url, user, password)) {
            assertThat(c.isValid(2)).isTrue();
        }
    }

    private static void assertRefused(String url, String user, String password) {
        assertThatThrownBy(() -> DriverManager.getConnection(url, user, password).close())
                .isInstanceOfSatisfying(SQLException.class, e -> assertThat(e.getSQLState())
                        .as(e.getMessage()).isIn(INVALID_PASSWORD, "08004"));
    }
}
