package org.sagas.app.cluster;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * One process of a role (or of the sandbox) in a cluster: {@code ./sagas <role>} in a JVM of its
 * own, on the same ports each time it starts, its output appended to its log. It can be started
 * again after it ended, killed as a crash would, paused and resumed. Not thread-safe.
 */
public final class RoleProcess {
    /** Small heaps: a cluster runs a dozen of these on one machine. */
    static final List<String> JVM_OPTIONS = List.of("-Xms64m", "-Xmx512m", "-XX:+UseSerialGC",
            "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-XX:+ExitOnOutOfMemoryError");

    private final String name;
    private final String role;
    private final int httpPort;
    private Map<String, String> env;
    private final Path log;
    private Process process;
    private boolean paused;

    /**
     * @param name e.g. {@code api-2}
     * @param role what it runs: a role of {@code ./sagas}, or {@code sandbox}
     * @param httpPort its public or ops listener (where {@code /health/ready} answers)
     * @param env the {@code SAGA_*} settings it gets, and nothing else of ours
     */
    public RoleProcess(String name, String role, int httpPort, Map<String, String> env, Path log) {
        this.name = name;
        this.role = role;
        this.httpPort = httpPort;
        this.env = Map.copyOf(env);
        this.log = log;
    }

    public String name() {
        return name;
    }

    public String role() {
        return role;
    }

    public int httpPort() {
        return httpPort;
    }

    public Path log() {
        return log;
    }

    /** Starts it unless it runs. */
    public RoleProcess start() {
        if (isAlive()) {
            return this;
        }
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString()));
        command.addAll(JVM_OPTIONS);
        command.add("-Dsagas.home=" + System.getProperty("sagas.home", "."));
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        // Ends with this process however it ends (kill -9 of the launcher, a stop during start): the
        // child watches the stdin pipe this process holds open and the kernel closes when it dies.
        command.add(org.sagas.embedded.ParentWatch.class.getName());
        command.add("org.sagas.app.Main");
        command.add(role);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().keySet().removeIf(k -> k.startsWith("SAGA_") || k.startsWith("OTEL_"));
        builder.environment().putAll(env);
        try {
            Files.writeString(log, "---- " + Instant.now() + " starting " + name + "\n",
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
            process = builder.start();
        } catch (IOException e) {
            throw new UncheckedIOException("could not start " + name + ": " + e.getMessage(), e);
        }
        paused = false;
        return this;
    }

    /** Waits until {@code /health/ready} answers 200; fails, naming its log, if it ends or takes too long. */
    public void awaitReady(HttpClient http, Duration within) {
        long deadline = System.nanoTime() + within.toNanos();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + "/health/ready"))
                .timeout(Duration.ofSeconds(2)).GET().build();
        while (System.nanoTime() < deadline) {
            if (!isAlive()) {
                throw new IllegalStateException(name + " ended with " + process.exitValue() + " before it was ready;"
                        + " see " + log);
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while waiting for " + name, e);
            }
            sleep(250);
        }
        throw new IllegalStateException(name + " not ready after " + within.toSeconds() + " s; see " + log);
    }

    public boolean isAlive() {
        return process != null && process.isAlive();
    }

    public boolean isPaused() {
        return paused && isAlive();
    }

    public long pid() {
        return process == null ? -1 : process.pid();
    }

    /** SIGKILL, as {@code kill -9} or a crash would: no shutdown hook runs. */
    public void kill() {
        if (process == null) {
            return;
        }
        resume(); // a stopped process takes SIGKILL too, but resumed it leaves no doubt
        process.destroyForcibly();
        waitFor(Duration.ofSeconds(30));
    }

    /** SIGSTOP: the process stops running, its sockets open, as a long GC pause or a frozen VM. */
    public void pause() {
        if (isAlive() && !paused) {
            signal("STOP");
            paused = true;
        }
    }

    /** SIGCONT after {@link #pause()}. */
    public void resume() {
        if (isAlive() && paused) {
            signal("CONT");
        }
        paused = false;
    }

    /**
     * One step of a rolling deploy: an orderly stop, then a start with {@code changes} to its
     * settings (the new build's), kept for every later start.
     */
    public RoleProcess redeploy(Map<String, String> changes) {
        stop();
        Map<String, String> next = new java.util.LinkedHashMap<>(env);
        next.putAll(changes);
        env = Map.copyOf(next);
        return start();
    }

    /** SIGTERM and its orderly stop, forcibly after 30 s. */
    public void stop() {
        if (process == null) {
            return;
        }
        resume();
        process.destroy();
        if (!waitFor(Duration.ofSeconds(30))) {
            process.destroyForcibly();
            waitFor(Duration.ofSeconds(10));
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                    .redirectErrorStream(true).start();
            kill.waitFor(10, TimeUnit.SECONDS);
        } catch (IOException e) {
            throw new UncheckedIOException("could not send SIG" + signal + " to " + name, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private boolean waitFor(Duration within) {
        try {
            return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return name + " (pid " + pid() + ", port " + httpPort + ")";
    }
}
