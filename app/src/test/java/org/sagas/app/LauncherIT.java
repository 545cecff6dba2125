package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import static org.sagas.app.LaunchedSagas.processesUsing;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.sagas.embedded.FreePorts;

/** {@code ./sagas up} as a real process: starts, answers its health checks, and leaves nothing behind. */
class LauncherIT {
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void shouldStartEverythingAnswerHealthAndStopEveryProcessOnSigterm() throws Exception {
        // Given free ports and no data directory of its own
        int api = FreePorts.find();
        List<String> output = new CopyOnWriteArrayList<>();

        // When ./sagas up starts
        long started = System.nanoTime();
        int admin = FreePorts.find();
        Process process = launch(Map.of(), output, "up", "--port",
                Integer.toString(api), "--inventory-port", Integer.toString(FreePorts.find()), "--payment-port",
                Integer.toString(FreePorts.find()), "--fraud-port", Integer.toString(FreePorts.find()), "--admin-port",
                Integer.toString(admin));
        Path dataDir;
        try {
            // A generous start, as CrashRestartIT's: in the suite it shares two cores with other test
            // JVMs (one start beside RoleFailoverIT's cluster took over 90 s on a slow machine)
            try {
                await().atMost(Duration.ofSeconds(300)).until(() -> output.contains("sagas is up") || !process.isAlive());
            } catch (org.awaitility.core.ConditionTimeoutException e) {
                throw new AssertionError("./sagas up not up within 300 s; its last lines: "
                        + output.subList(Math.max(0, output.size() - 40), output.size()), e);
            }
            double secondsToUp = (System.nanoTime() - started) / 1e9;
            dataDir = output.stream().filter(line -> line.startsWith("starting embedded")).findFirst()
                    .map(line -> Path.of(line.substring(line.lastIndexOf(" in ") + 4))).orElseThrow();

            // Then health answers, metrics are Prometheus text, and the broker and PostgreSQL run as children
            assertThat(process.isAlive()).as("launcher output: %s", output).isTrue();
            assertThat(get(api, "/health/live").statusCode()).isEqualTo(200);
            await().atMost(Duration.ofSeconds(20)).until(() -> get(api, "/health/ready").statusCode() == 200);
            HttpResponse<String> metrics = get(api, "/metrics");
            assertThat(metrics.body()).contains("saga_circuit_state{dependency=\"inventory\"}");
            assertThat(processesUsing(dataDir)).as("postgres and broker processes").hasSizeGreaterThanOrEqualTo(2);
            assertThat(Files.readString(dataDir.resolve("kafka").resolve("kafka.log"))).isNotEmpty();
            assertThat(output).noneMatch(line -> line.contains("INFO") && line.contains("kafka.server"));
            // And with no admin token configured, one was made in the data directory, for its owner only
            Path tokenFile = dataDir.resolve("admin-token");
            assertThat(output).anySatisfy(line -> assertThat(line).contains("admin token", tokenFile.toString()));
            assertThat(output).anySatisfy(line -> assertThat(line).contains("console", ":" + admin + "/console/"));
            assertThat(Files.getPosixFilePermissions(tokenFile)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            String token = Files.readString(tokenFile).strip();
            assertThat(get(admin, "/admin/whoami", token).statusCode()).isEqualTo(200);
            assertThat(get(admin, "/admin/whoami", "not-" + token).statusCode()).isEqualTo(401);
            assertThat(get(api, "/admin/whoami", token).statusCode()).as("nothing of it on the public port")
                    .isEqualTo(404);
            System.out.printf("warm start to ready: %.1f s%n", secondsToUp);
        } catch (AssertionError | RuntimeException e) {
            process.destroy(); // a failed check must not leave the product running
            throw e;
        }

        // When it receives SIGTERM
        process.destroy();

        // Then it exits, no process of it is left, and neither is its temporary data
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(15)).until(() -> processesUsing(dataDir).isEmpty());
        assertThat(dataDir).doesNotExist();
    }

    @Test
    void shouldExplainAnUnreachableDatabaseInOneLineAndExitNonZero() throws Exception {
        List<String> output = new CopyOnWriteArrayList<>();
        Process process = launch(Map.of("SAGA_DB_URL", "jdbc:postgresql://127.0.0.1:" + FreePorts.find() + "/none",
                "SAGA_DB_WAIT_MS", "1000", "SAGA_KAFKA_BOOTSTRAP", "127.0.0.1:" + FreePorts.find()), output, "api", "--port",
                Integer.toString(FreePorts.find()));

        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).isNotZero();
        assertThat(output).anySatisfy(line -> assertThat(line).startsWith("sagas: error: cannot reach PostgreSQL"));
        assertThat(output).noneMatch(line -> line.startsWith("\tat "));
    }

    @Test
    void shouldExplainATakenPortAndExitNonZero() throws Exception {
        try (var taken = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            List<String> output = new CopyOnWriteArrayList<>();
            Process process = launch(Map.of(), output, "up", "--port", Integer.toString(taken.getLocalPort()));

            assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(process.exitValue()).isNotZero();
            assertThat(output).contains("sagas: error: port " + taken.getLocalPort()
                    + " is already in use (change SAGA_HTTP_PORT / --port)");
        }
    }

    @Test
    void shouldListCommandsRolesAndSettingsAndRefuseUnknownCommands() throws Exception {
        List<String> help = new CopyOnWriteArrayList<>();
        Process p = launch(Map.of(), help, "--help");
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).isZero();
        assertThat(String.join("\n", help)).contains("up", "saga-worker", "payment-worker", "reconciler", "relay",
                "sandbox", "SAGA_DB_URL", "SAGA_KAFKA_BOOTSTRAP", "bench throughput");

        List<String> unknown = new CopyOnWriteArrayList<>();
        Process q = launch(Map.of(), unknown, "fly");
        assertThat(q.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(q.exitValue()).isNotZero();
        assertThat(unknown).contains("sagas: error: unknown command 'fly' (see ./sagas --help)");
    }

    private Process launch(Map<String, String> env, List<String> output, String... args) throws IOException {
        return LaunchedSagas.launch(env, output, args).process();
    }

    private HttpResponse<String> get(int port, String path) {
        return get(port, path, null);
    }

    private HttpResponse<String> get(int port, String path, String token) {
        try {
            HttpRequest.Builder request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                    .timeout(Duration.ofSeconds(5)).GET();
            if (token != null) {
                request.header("Authorization", "Bearer " + token);
            }
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
