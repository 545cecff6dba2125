package org.sagas.app;

import static org.awaitility.Awaitility.await;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * {@code ./sagas} as a real process, as a user starts it: {@code org.sagas.app.Main} in a JVM of
 * its own on this test's class path, with no {@code SAGA_*} setting but those given. Its output
 * (stdout and stderr) is collected line by line.
 */
final class LaunchedSagas {
    private final Process process;
    private final List<String> output;

    private LaunchedSagas(Process process, List<String> output) {
        this.process = process;
        this.output = output;
    }

    static LaunchedSagas launch(Map<String, String> env, String... args) throws IOException {
        return launch(env, new CopyOnWriteArrayList<>(), args);
    }

    /** As {@link #launch(Map, String...)}, collecting the output into {@code output} (a thread-safe list). */
    static LaunchedSagas launch(Map<String, String> env, List<String> output, String... args) throws IOException {
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-Xmx1g", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                Main.class.getName()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.startsWith("SAGA_"));
        // The operator API on any free port unless a test names one: 8090 may be taken on a shared machine.
        builder.environment().put("SAGA_ADMIN_PORT", "0");
        builder.environment().putAll(env);
        LaunchedSagas launched = new LaunchedSagas(builder.start(), output);
        Thread reader = new Thread(launched::collectOutput, "launched-sagas-output");
        reader.setDaemon(true);
        reader.start();
        return launched;
    }

    private void collectOutput() {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = r.readLine()) != null) {
                output.add(line);
            }
        } catch (IOException e) {
            output.add("(output closed: " + e.getMessage() + ")");
        }
    }

    /** Waits for "sagas is up" and returns how long it took from now; fails if the process ends first. */
    Duration awaitUp(Duration within) {
        long started = System.nanoTime();
        try {
            await("sagas is up").atMost(within).pollInterval(Duration.ofMillis(200))
                    .until(() -> output.contains("sagas is up") || !process.isAlive());
        } catch (org.awaitility.core.ConditionTimeoutException e) {
            List<String> lines = List.copyOf(output);
            throw new AssertionError("sagas not up within " + within + "; the last of its output: "
                    + lines.subList(Math.max(0, lines.size() - 40), lines.size()), e);
        }
        if (!process.isAlive()) {
            throw new AssertionError("sagas ended before it was up; its output: " + output);
        }
        return Duration.ofNanos(System.nanoTime() - started);
    }

    List<String> output() {
        return output;
    }

    Process process() {
        return process;
    }

    long pid() {
        return process.pid();
    }

    /** SIGKILL, as a crash or {@code kill -9} would: no shutdown hook runs. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, as Ctrl-C or a service manager would; true when the process ended within {@code within}. */
    boolean stop(Duration within) throws InterruptedException {
        process.destroy();
        return process.waitFor(within.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * Processes whose command line names a file under {@code dir} (PostgreSQL's -D, the broker's
     * config, PostgreSQL's reaper).
     */
    static List<ProcessHandle> processesUsing(Path dir) {
        String under = dir.toAbsolutePath() + "/";
        List<ProcessHandle> found = new ArrayList<>();
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : (Iterable<Path>) procs::iterator) {
                String name = p.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    String cmdline = new String(Files.readAllBytes(p.resolve("cmdline")), StandardCharsets.UTF_8);
                    if (cmdline.contains(under)) {
                        ProcessHandle.of(Long.parseLong(name)).ifPresent(found::add);
                    }
                } catch (IOException gone) {
                    // the process ended while we looked
                }
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException("cannot list /proc", e);
        }
        return found;
    }

    /** Their command lines, for messages. */
    static List<String> describe(List<ProcessHandle> processes) {
        return processes.stream().map(p -> p.pid() + " " + p.info().commandLine().orElse("?")).toList();
    }
}
