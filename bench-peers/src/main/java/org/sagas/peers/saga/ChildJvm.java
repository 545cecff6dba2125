package org.sagas.peers.saga;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A JVM the benchmark starts (an engine, the sandbox services): its output goes to a log file, and
 * {@link #start} returns once a line matches {@code ready} (its first group, if any, is kept: the
 * port it listens on). {@link #close()} asks it to stop (SIGTERM), then kills it after 20 s. Every
 * JVM gets the same options, those of {@code ./sagas} (C1 only, ADR 0020; no hsperfdata, ADR 0029).
 * Not thread-safe.
 */
final class ChildJvm implements AutoCloseable {
    static final List<String> JVM_OPTIONS = List.of("-Xms256m", "-Xmx2g", "-XX:+UseG1GC", "-XX:TieredStopAtLevel=1",
            "-XX:-UsePerfData", "-Duser.timezone=UTC");
    /** Every JVM started and not yet stopped, for {@link #killAll()}. */
    private static final Set<Process> LIVE = ConcurrentHashMap.newKeySet();

    private final String name;
    private final Process process;
    private final String ready;

    private ChildJvm(String name, Process process, String ready) {
        this.name = name;
        this.process = process;
        this.ready = ready;
    }

    static ChildJvm start(String name, String classPath, List<String> mainAndArgs, List<String> properties,
            Map<String, String> env, Path log, Pattern ready, Duration timeout) throws IOException {
        Process process = started(builder(classPath, mainAndArgs, properties, env).start());
        CompletableFuture<String> seen = new CompletableFuture<>();
        pump(name, process, log, ready, seen);
        try {
            return new ChildJvm(name, process, seen.get(timeout.toMillis(), TimeUnit.MILLISECONDS));
        } catch (InterruptedException | ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            throw new IllegalStateException(name + " did not become ready in " + timeout.toSeconds() + " s (see "
                    + log + ")", e);
        }
    }

    /** Runs a JVM to its end (a peer's {@code prepare}); fails unless it exits 0. */
    static void runToEnd(String name, String classPath, List<String> mainAndArgs, List<String> properties,
            Map<String, String> env, Path log, Duration timeout) throws IOException, InterruptedException {
        Process process = started(builder(classPath, mainAndArgs, properties, env).start());
        pump(name, process, log, null, new CompletableFuture<>());
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(name + " did not end in " + timeout.toSeconds() + " s (see " + log + ")");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(name + " exited " + process.exitValue() + " (see " + log + ")");
        }
    }

    private static ProcessBuilder builder(String classPath, List<String> mainAndArgs, List<String> properties,
            Map<String, String> env) {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.addAll(properties);
        command.add("-cp");
        command.add(classPath);
        command.addAll(mainAndArgs);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().putAll(env);
        return builder;
    }

    private static Process started(Process process) {
        LIVE.add(process);
        process.onExit().thenRun(() -> LIVE.remove(process));
        return process;
    }

    /** Kills every JVM this class started that still runs (the benchmark was interrupted). */
    static void killAll() {
        LIVE.forEach(Process::destroyForcibly);
    }

    /** Copies the output to {@code log}; completes {@code seen} at the first line matching {@code ready}. */
    private static void pump(String name, Process process, Path log, Pattern ready, CompletableFuture<String> seen)
            throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        PrintWriter file = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8), true);
        Thread pump = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8)); file) {
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    file.println(line);
                    Matcher m = ready == null ? null : ready.matcher(line);
                    if (m != null && m.find()) {
                        seen.complete(m.groupCount() > 0 ? m.group(1) : line);
                    }
                }
            } catch (IOException e) {
                seen.completeExceptionally(e);
            }
            seen.completeExceptionally(new IllegalStateException(name + " exited"));
        }, "output-" + name);
        pump.setDaemon(true);
        pump.start();
    }

    String name() {
        return name;
    }

    /** What the ready line's group held (e.g. the port). */
    String ready() {
        return ready;
    }

    long pid() {
        return process.pid();
    }

    boolean alive() {
        return process.isAlive();
    }

    /** This JVM's CPU time so far (all its threads, JIT and GC included), in nanoseconds. */
    long cpuNanos() {
        return Math.max(0, ProcStat.ownNanos(process.pid()));
    }

    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
