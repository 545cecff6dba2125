package org.sagas.app;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;

/**
 * A secret {@code ./sagas up} makes for itself when none is configured (the admin token, the
 * sandbox ledgers' token): 32 random bytes, URL-safe base64, in a file of the data directory
 * created readable by its owner only (mode 600) before a byte is written. A data directory kept
 * between runs keeps its secret. Stateless.
 */
final class GeneratedSecret {
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private GeneratedSecret() {}

    /** Makes {@code directory} (and its parents) if need be, readable by its owner alone (700). */
    static void ownerOnlyDirectory(Path directory) {
        try {
            Files.createDirectories(directory, PosixFilePermissions.asFileAttribute(
                    PosixFilePermissions.fromString("rwx------")));
            Files.setPosixFilePermissions(directory, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException | UnsupportedOperationException e) {
            throw new ConfigurationError("cannot create " + directory + ": " + e.getMessage(), e);
        }
    }

    /**
     * The secret in {@code file}, made now if there is none.
     *
     * @param instead what the user can set instead, for the error message
     * @throws ConfigurationError if the file cannot be read or written
     */
    static String ensure(Path file, String instead) {
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            if (Files.exists(file)) {
                // Kept from an earlier run: tighten it if someone loosened it.
                Files.setPosixFilePermissions(file, OWNER_ONLY);
                String secret = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!secret.isEmpty()) {
                    return secret;
                }
            }
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String secret = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (FileAlreadyExistsException empty) {
                Files.setPosixFilePermissions(file, OWNER_ONLY);
            }
            Files.writeString(file, secret + "\n", StandardCharsets.UTF_8);
            return secret;
        } catch (IOException | UnsupportedOperationException e) {
            throw new ConfigurationError("cannot write " + file + ": " + e.getMessage() + " (or set " + instead + ")",
                    e);
        }
    }
}
