package org.sagas.app;

import java.nio.file.Path;

/**
 * The operator token {@code ./sagas up} makes when none is configured: a {@link GeneratedSecret}
 * in {@code <data dir>/admin-token} (mode 600). A data directory kept between runs keeps its
 * token. Stateless.
 */
public final class AdminTokenFile {
    public static final String NAME = "admin-token";

    private AdminTokenFile() {}

    /** The token in {@code dir/admin-token}, made now if there is none. */
    static String ensure(Path dir) {
        return GeneratedSecret.ensure(dir.resolve(NAME), "SAGA_ADMIN_TOKEN");
    }
}
