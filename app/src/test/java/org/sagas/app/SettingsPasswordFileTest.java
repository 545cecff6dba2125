package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The database password from {@code SAGA_DB_PASSWORD_FILE} (Docker secrets) and no default password. */
class SettingsPasswordFileTest {
    private static final String URL = "jdbc:postgresql://db:5432/sagas";

    @TempDir
    Path dir;

    @Test
    void shouldReadThePasswordFromTheFileWithoutItsTrailingNewline() throws Exception {
        // Given a secret file written by `echo`, with spaces inside and around the password kept
        Path file = Files.writeString(dir.resolve("db_password"), " s3cret word \n");

        // When the settings name the file
        Settings settings = settings(Map.of("SAGA_DB_URL", URL, "SAGA_DB_PASSWORD_FILE", file.toString()));

        // Then the password is the file's content less its line end
        assertThat(settings.dbPassword()).isEqualTo(" s3cret word ");
    }

    @Test
    void shouldStripAWindowsLineEndToo() throws Exception {
        Path file = Files.writeString(dir.resolve("db_password"), "s3cret\r\n");

        assertThat(settings(Map.of("SAGA_DB_PASSWORD_FILE", file.toString())).dbPassword()).isEqualTo("s3cret");
    }

    @Test
    void shouldRefuseThePasswordAndItsFileTogether() throws Exception {
        Path file = Files.writeString(dir.resolve("db_password"), "from-file\n");

        assertThatThrownBy(() -> settings(Map.of("SAGA_DB_PASSWORD", "from-env",
                "SAGA_DB_PASSWORD_FILE", file.toString())))
                .isInstanceOf(ConfigurationError.class)
                .hasMessage("SAGA_DB_PASSWORD and SAGA_DB_PASSWORD_FILE are both set: keep one");
    }

    @Test
    void shouldNameTheVariableAndTheFileWhenTheFileIsMissing() {
        Path missing = dir.resolve("nowhere");

        assertThatThrownBy(() -> settings(Map.of("SAGA_DB_PASSWORD_FILE", missing.toString())))
                .isInstanceOf(ConfigurationError.class)
                .hasMessage("SAGA_DB_PASSWORD_FILE: cannot read " + missing + " (NoSuchFileException)");
    }

    @Test
    void shouldFailClearlyWhenThePathIsNotAReadableFile() {
        // A directory: what a wrong volume mount gives (permissions cannot be tested when tests run as root)
        assertThatThrownBy(() -> settings(Map.of("SAGA_DB_PASSWORD_FILE", dir.toString())))
                .isInstanceOf(ConfigurationError.class)
                .hasMessageStartingWith("SAGA_DB_PASSWORD_FILE: cannot read " + dir + " (IOException");
    }

    @Test
    void shouldRefuseAnEmptyPasswordFile() throws Exception {
        Path file = Files.writeString(dir.resolve("db_password"), "\n");

        assertThatThrownBy(() -> settings(Map.of("SAGA_DB_PASSWORD_FILE", file.toString())))
                .isInstanceOf(ConfigurationError.class)
                .hasMessage("SAGA_DB_PASSWORD_FILE: " + file + " is empty");
    }

    @Test
    void shouldNotPutTheSecretInTheErrorWhenTheFileIsTooLarge() throws Exception {
        Path file = Files.writeString(dir.resolve("db_password"), "x".repeat(5000));

        assertThatThrownBy(() -> settings(Map.of("SAGA_DB_PASSWORD_FILE", file.toString())))
                .isInstanceOf(ConfigurationError.class)
                .hasMessageContaining("is larger than 4096 bytes")
                .hasMessageNotContaining("xxxx");
    }

    @Test
    void shouldHaveNoDefaultPasswordForAnExternalDatabase() {
        assertThat(settings(Map.of("SAGA_DB_URL", URL)).dbPassword()).isEmpty();
    }

    @Test
    void shouldReadTheSettingsAgainWithoutTheFileOnceResolved() throws Exception {
        // Given settings whose password came from a file that is gone afterwards
        Path file = Files.writeString(dir.resolve("db_password"), "s3cret\n");
        Settings first = settings(Map.of("SAGA_DB_URL", URL, "SAGA_DB_PASSWORD_FILE", file.toString()));
        Files.delete(file);

        // When they are read again from their raw values, as the benchmarks do
        Map<String, String> env = new HashMap<>(first.raw());
        env.put("SAGA_DB_PASSWORD", "s3cret");
        Settings again = Settings.from(env::get, Map.of());

        // Then the password carries over and the file is not needed
        assertThat(again.dbPassword()).isEqualTo("s3cret");
        assertThat(first.forOwnProduct().dbPassword()).isEqualTo("s3cret");
    }

    private static Settings settings(Map<String, String> env) {
        return Settings.from(env::get, Map.of());
    }
}
