package org.sagas.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server process left running on a data directory by an owner that died: found through the pid
 * file the server (or we) wrote, recognised by its command line, and ended step by step, each step
 * a signal and a bounded wait.
 *
 * <p>Call only while holding the directory's {@link OwnerLock}: that is what proves the owner is
 * gone. A pid file whose process is not running, or is not ours (the pid was reused after a
 * reboot), is stale and is removed; an unrelated process is never signalled. Stateless.
 */
final class Leftover {
    private static final Logger log = LoggerFactory.getLogger(Leftover.class);

    /** The signals we send; INT and QUIT go through the {@code kill} command, Java has no API for them. */
    enum Signal { INT, QUIT, TERM, KILL }

    /** Send {@code signal}, then wait up to {@code patience} for the process to end. */
    record Step(Signal signal, Duration patience) {}

    private Leftover() {}

    /**
     * Ends the process named on the first line of {@code pidFile} if it still runs and
     * {@code isOurs} accepts its command line, then removes the pid file if it is still there.
     *
     * @return whether a running process was ended
     * @throws IllegalStateException when the process outlives every step
     */
    static boolean end(Path pidFile, String what, Predicate<List<String>> isOurs, List<Step> steps) {
        OptionalLong pid = pidIn(pidFile);
        if (pid.isEmpty()) {
            return false;
        }
        Optional<ProcessHandle> process = ProcessHandle.of(pid.getAsLong()).filter(ProcessHandle::isAlive)
                .filter(p -> isOurs.test(commandLine(p)));
        if (process.isEmpty()) {
            log.info("{} names pid {}, which is not a running {}: removing the stale file", pidFile, pid.getAsLong(),
                    what);
            delete(pidFile);
            return false;
        }
        log.warn("{} (pid {}) still runs and its owner is gone (a crash, or a start that failed): ending it",
                what, pid.getAsLong());
        for (Step step : steps) {
            if (stop(process.get(), step)) {
                log.warn("{} (pid {}) ended after {}", what, pid.getAsLong(), step.signal());
                delete(pidFile);
                return true;
            }
        }
        throw new IllegalStateException(what + " (pid " + pid.getAsLong() + ") left running in "
                + pidFile.getParent() + " did not end after " + steps + "; end it by hand");
    }

    /** The pid on the first line of {@code pidFile}, if the file exists and starts with one. */
    static OptionalLong pidIn(Path pidFile) {
        try {
            List<String> lines = Files.readAllLines(pidFile, StandardCharsets.UTF_8);
            return lines.isEmpty() ? OptionalLong.empty() : OptionalLong.of(Long.parseLong(lines.get(0).strip()));
        } catch (java.nio.file.NoSuchFileException e) {
            return OptionalLong.empty();
        } catch (NumberFormatException e) {
            log.info("{} does not start with a pid: removing it", pidFile);
            delete(pidFile);
            return OptionalLong.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + pidFile, e);
        }
    }

    /** The process's argv, from {@code /proc} where there is one, else from the JDK. */
    static List<String> commandLine(ProcessHandle process) {
        Path proc = Path.of("/proc", Long.toString(process.pid()), "cmdline");
        try {
            if (Files.isReadable(proc)) {
                String raw = new String(Files.readAllBytes(proc), StandardCharsets.UTF_8);
                return Arrays.asList(raw.split("\0"));
            }
        } catch (IOException e) {
            // ended meanwhile, or not readable: ask the JDK below
        }
        List<String> argv = new ArrayList<>();
        process.info().command().ifPresent(argv::add);
        process.info().arguments().ifPresent(args -> argv.addAll(Arrays.asList(args)));
        return argv;
    }

    /** Whether {@code argument} names the same file as {@code path} (both must exist). */
    static boolean sameFile(String argument, Path path) {
        try {
            return Files.isSameFile(Path.of(argument).toAbsolutePath(), path);
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    private static boolean stop(ProcessHandle process, Step step) {
        // Children first collected: once the parent is killed they are re-parented and out of reach.
        List<ProcessHandle> children = step.signal() == Signal.KILL ? process.descendants().toList() : List.of();
        send(process, step.signal());
        children.forEach(ProcessHandle::destroyForcibly);
        try {
            process.onExit().get(step.patience().toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (java.util.concurrent.TimeoutException e) {
            return false;
        } catch (java.util.concurrent.ExecutionException e) {
            return !process.isAlive();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return !process.isAlive();
        }
    }

    private static void send(ProcessHandle process, Signal signal) {
        switch (signal) {
            case TERM -> process.destroy();
            case KILL -> process.destroyForcibly();
            default -> {
                try {
                    Process kill = new ProcessBuilder("kill", "-s", signal.name(), Long.toString(process.pid()))
                            .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
                    kill.waitFor(10, TimeUnit.SECONDS);
                } catch (IOException e) {
                    log.warn("could not send SIG{} to pid {}: {}", signal, process.pid(), e.toString());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static void delete(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove " + file, e);
        }
    }
}
