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
 * The operator token {@code ./sagas up} makes when none is configured: 32 random bytes in
 * {@code <data dir>/admin-token}, created readable by its owner only (mode 600) before a byte is
 * written. A data directory kept between runs keeps its token. Stateless.
 */
final class AdminTokenFile {
    static final String NAME = "admin-token";
    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rw-------");

    private AdminTokenFile() {}

    /** The token in {@code dir/admin-token}, made now if there is none. */
    static String ensure(Path dir) {
        Path file = dir.resolve(NAME);
        try {
            Files.createDirectories(dir);
            if (Files.exists(file)) {
                // Kept from an earlier run: tighten it if someone loosened it.
                Files.setPosixFilePermissions(file, OWNER_ONLY);
                String token = Files.readString(file, StandardCharsets.UTF_8).strip();
                if (!token.isEmpty()) {
                    return token;
                }
            }
            byte[] random = new byte[32];
            new SecureRandom().nextBytes(random);
            String token = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            try {
                Files.createFile(file, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (FileAlreadyExistsException empty) {
                Files.setPosixFilePermissions(file, OWNER_ONLY);
            }
            Files.writeString(file, token + "\n", StandardCharsets.UTF_8);
            return token;
        } catch (IOException | UnsupportedOperationException e) {
            throw new ConfigurationError("cannot write the admin token to " + file + ": " + e.getMessage()
                    + " (or set SAGA_ADMIN_TOKEN)", e);
        }
    }
}
