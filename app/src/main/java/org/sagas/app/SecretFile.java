package org.sagas.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.Map;

/**
 * A secret setting given either as {@code NAME} or as {@code NAME_FILE}, the path of a file that
 * holds it — how Docker secrets and Kubernetes secret volumes hand over passwords without putting
 * them in the environment or the compose file. Errors never contain the secret. Stateless.
 */
final class SecretFile {
    /** Larger than any password: a path that points at something else fails clearly instead. */
    private static final long MAX_BYTES = 4096;

    private SecretFile() {}

    /**
     * The value of {@code name}, read from the file {@code name_FILE} names when that is set. Afterwards
     * {@code raw} holds the value under {@code name} and nothing under {@code name_FILE}, so the
     * settings can be read again from {@code raw} (benchmarks do) without the file.
     *
     * @throws ConfigurationError if both are set, or the file cannot be read, is too large or empty
     */
    static String resolve(Map<String, String> raw, String name) {
        String fileVariable = name + "_FILE";
        String value = raw.get(name);
        String file = raw.get(fileVariable);
        if (file.isEmpty()) {
            return value;
        }
        if (!value.isEmpty()) {
            throw new ConfigurationError(name + " and " + fileVariable + " are both set: keep one");
        }
        String secret = read(fileVariable, file);
        raw.put(name, secret);
        raw.put(fileVariable, "");
        return secret;
    }

    /** The secret in {@code file} (named by {@code variable} in errors), its line end dropped. */
    static String read(String variable, String file) {
        try {
            Path path = Path.of(file);
            if (Files.size(path) > MAX_BYTES) {
                throw new ConfigurationError(variable + ": " + file + " is larger than " + MAX_BYTES
                        + " bytes; it should hold only the secret");
            }
            // Files written by `echo` or an editor end with a newline that is not part of the secret.
            String secret = Files.readString(path, StandardCharsets.UTF_8).replaceFirst("[\\r\\n]+$", "");
            if (secret.isEmpty()) {
                throw new ConfigurationError(variable + ": " + file + " is empty");
            }
            return secret;
        } catch (IOException | InvalidPathException e) {
            throw new ConfigurationError(variable + ": cannot read " + file + " (" + e.getClass().getSimpleName()
                    + (e.getMessage() == null || e.getMessage().equals(file) ? "" : ": " + e.getMessage()) + ")", e);
        }
    }
}
