package org.sagas.embedded;

import java.nio.file.Path;

/**
 * A data directory is held by another live process: its servers are in use and are left alone.
 * Thrown by {@link EmbeddedPostgresServer#start} and {@link KafkaBroker#start}.
 */
public final class DataDirectoryInUseException extends IllegalStateException {
    private final Path directory;
    private final String holder;

    DataDirectoryInUseException(Path directory, String holder) {
        super(directory + " is in use by another process (" + holder + ")");
        this.directory = directory;
        this.holder = holder;
    }

    public Path directory() {
        return directory;
    }

    /** What the holder wrote in its lock file (its pid), or "unknown". */
    public String holder() {
        return holder;
    }
}
