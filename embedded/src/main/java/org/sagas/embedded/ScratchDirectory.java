package org.sagas.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A temporary data directory for embedded servers that nobody will reuse (tests, benchmarks, a
 * run without a data directory of its own): created readable by the servers' user, deleted with
 * everything in it once they stopped. Not thread-safe.
 */
public final class ScratchDirectory implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ScratchDirectory.class);

    private final Path path;

    private ScratchDirectory(Path path) {
        this.path = path;
    }

    /** A new directory under the temporary directory, named {@code prefix} and a number. */
    public static ScratchDirectory create(String prefix) {
        try {
            Path dir = Files.createTempDirectory(prefix);
            Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
            return new ScratchDirectory(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a temporary data directory", e);
        }
    }

    public Path path() {
        return path;
    }

    /** Deletes the directory and all it holds; a failure is logged, not thrown. */
    @Override
    public void close() {
        try (Stream<Path> all = Files.walk(path)) {
            for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (IOException | UncheckedIOException e) {
            log.warn("could not delete the temporary data directory {}: {}", path, e.toString());
        }
    }
}
