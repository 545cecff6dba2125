package org.sagas.relay.support;

import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.sagas.testkit.TestInfra;

/** Runs {@link RelayMain} in a child JVM on this JVM's class path. */
public final class RelayProcess implements AutoCloseable {
    private final Process process;
    private final Path log;

    private RelayProcess(Process process, Path log) {
        this.process = process;
        this.log = log;
    }

    /** Starts a relay process and waits until it says it started. */
    public static RelayProcess start(TestInfra infra, String instanceId) {
        try {
            Path log = Files.createDirectories(Path.of("target", "relay-processes")).resolve(instanceId + ".log");
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                    "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                    RelayMain.class.getName(), infra.jdbcUrl(), infra.user(), infra.password(),
                    infra.bootstrapServers(), instanceId);
            Process process = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(log.toFile()).start();
            RelayProcess relay = new RelayProcess(process, log);
            await().atMost(Duration.ofSeconds(60)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("relay process exited; see " + log);
                }
                return Files.readString(log).contains("READY");
            });
            return relay;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Kills the process at once (SIGKILL), as a crash would. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor();
    }

    public Path log() {
        return log;
    }

    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                process.destroy();
                if (!process.waitFor(20, java.util.concurrent.TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                    process.waitFor();
                }
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    public boolean isAlive() {
        return process.isAlive();
    }
}
