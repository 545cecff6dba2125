package org.sagas.embedded;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ProcessBuilder.Redirect;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Makes a PostgreSQL server end with the JVM that started it. {@code pg_ctl} detaches the
 * postmaster (its own session, re-parented to init), and PostgreSQL has no way to be told to
 * follow a parent. So a tiny shell, started by this JVM with its stdin a pipe from us, waits for
 * end-of-file on that pipe, which the kernel delivers when this JVM dies, however it dies; it
 * then asks the postmaster for a fast shutdown (SIGINT), if the data directory's
 * {@code postmaster.pid} still names it. The shell runs in a session of its own where
 * {@code setsid} exists, so a signal to our process group does not take it down with us.
 *
 * <p>{@link #close()} ends the shell without touching the server (an orderly stop has already
 * stopped it). Not thread-safe.
 */
final class PostmasterReaper implements AutoCloseable {
    /** Its {@code $0}: how the reaper shows up in {@code ps}. */
    static final String NAME = "sagas-postgres-reaper";

    // $1: the postmaster's pid, $2: its data directory.
    private static final String SCRIPT = "while read -r _; do :; done\n"
            + "read -r running 2>/dev/null < \"$2/postmaster.pid\" || exit 0\n"
            + "[ \"$running\" = \"$1\" ] && kill -INT \"$1\"\n";

    private final Process shell;

    private PostmasterReaper(Process shell) {
        this.shell = shell;
    }

    /** Starts watching the postmaster {@code pid} serving {@code dataDirectory}. */
    static PostmasterReaper watch(long pid, Path dataDirectory) {
        List<String> command = new ArrayList<>();
        setsid().ifPresent(command::add);
        command.addAll(List.of("/bin/sh", "-c", SCRIPT, NAME, Long.toString(pid), dataDirectory.toString()));
        try {
            // stdin stays a pipe from us (the default): its end is the signal. We never write to it.
            return new PostmasterReaper(new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(Redirect.DISCARD).start());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start the watch that stops PostgreSQL with this process", e);
        }
    }

    private static Optional<String> setsid() {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String dir : path.split(File.pathSeparator)) {
            Path candidate = Path.of(dir, "setsid");
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate.toString());
            }
        }
        return Optional.empty();
    }

    @Override
    public void close() {
        shell.destroy();
        try {
            shell.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
