package org.sagas.app;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.sagas.orchestrator.admin.AdminTokens;

/**
 * The operator API's settings (DESIGN.md section 9a), read from {@link Settings#raw()} and
 * validated with one clear error each. Immutable.
 *
 * @param tokensFile null when unset
 * @param token null when unset
 */
record AdminSettings(String host, int port, Path tokensFile, String token, boolean readOnly,
        Duration participantTimeout) {

    static AdminSettings from(Settings settings) {
        var raw = settings.raw();
        String file = raw.getOrDefault("SAGA_ADMIN_TOKENS_FILE", "");
        String token = raw.getOrDefault("SAGA_ADMIN_TOKEN", "");
        return new AdminSettings(raw.getOrDefault("SAGA_ADMIN_HOST", "127.0.0.1"),
                integer(raw.getOrDefault("SAGA_ADMIN_PORT", "8090"), "SAGA_ADMIN_PORT", 0, 65_535),
                file.isBlank() ? null : Path.of(file), token.isBlank() ? null : token,
                bool(raw.getOrDefault("SAGA_ADMIN_READ_ONLY", "false"), "SAGA_ADMIN_READ_ONLY"),
                Duration.ofMillis(integer(raw.getOrDefault("SAGA_ADMIN_PARTICIPANT_TIMEOUT_MS", "1000"),
                        "SAGA_ADMIN_PARTICIPANT_TIMEOUT_MS", 50, 60_000)));
    }

    /** The tokens from the file and the environment; empty when neither is set. */
    AdminTokens tokens() {
        List<String> lines = List.of();
        if (tokensFile != null) {
            try {
                lines = Files.readAllLines(tokensFile);
            } catch (IOException e) {
                throw new ConfigurationError("SAGA_ADMIN_TOKENS_FILE: cannot read " + tokensFile + " (" + e + ")");
            }
        }
        try {
            return AdminTokens.parse(lines, "SAGA_ADMIN_TOKENS_FILE " + tokensFile, token);
        } catch (IllegalArgumentException e) {
            throw new ConfigurationError(e.getMessage(), e);
        }
    }

    private static int integer(String value, String name, int min, int max) {
        try {
            int v = Integer.parseInt(value.strip());
            if (v < min || v > max) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new ConfigurationError(name + " must be an integer from " + min + " to " + max + " (got '" + value
                    + "')");
        }
    }

    private static boolean bool(String value, String name) {
        if ("true".equalsIgnoreCase(value.strip()) || "false".equalsIgnoreCase(value.strip())) {
            return Boolean.parseBoolean(value.strip());
        }
        throw new ConfigurationError(name + " must be true or false (got '" + value + "')");
    }
}
