package org.sagas.app.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * A process of the product's launcher ({@code org.sagas.app.Main}) started by a benchmark, so that
 * what it spends is its own: same JDK, class path and {@code sagas.home} as this JVM, the JVM
 * options of {@code SAGA_JAVA_OPTS} (else the launcher's defaults), this environment plus
 * {@code env}. Its output goes to {@code log}. {@link #close()} stops it as Ctrl-C would, then
 * forcibly after 30 s. Not thread-safe.
 */
public final class ChildJvm implements AutoCloseable {
    private static final String DEFAULT_OPTS = "-Xms256m -Xmx1g -XX:+UseG1GC -XX:TieredStopAtLevel=1 -XX:-UsePerfData";

    private final String name;
    private final Process process;
    private final Path log;

    private ChildJvm(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    /** Starts {@code ./sagas <args>} as a child process. */
    public static ChildJvm start(String name, List<String> args, Map<String, String> env, Path log) {
        return start(name, List.of(), args, env, log);
    }

    /**
     * Starts {@code ./sagas <args>} as a child process under {@code prefix} (e.g. {@code nice -n -10},
     * which every thread of the JVM inherits).
     */
    public static ChildJvm start(String name, List<String> prefix, List<String> args, Map<String, String> env,
            Path log) {
        List<String> command = new ArrayList<>(prefix);
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        String opts = System.getenv("SAGA_JAVA_OPTS");
        for (String o : (opts == null || opts.isBlank() ? DEFAULT_OPTS : opts).trim().split("\\s+")) {
            command.add(o);
        }
        command.add("-Dsagas.home=" + System.getProperty("sagas.home", "."));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add("org.sagas.app.Main");
        command.addAll(args);
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        pb.environment().putAll(env);
        try {
            return new ChildJvm(name, pb.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("could not start the " + name + " process: " + e.getMessage(), e);
        }
    }

    public ProcessHandle handle() {
        return process.toHandle();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Where its output goes. */
    public Path log() {
        return log;
    }

    public String name() {
        return name;
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
