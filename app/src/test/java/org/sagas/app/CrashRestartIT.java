package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.sagas.app.LaunchedSagas.describe;
import static org.sagas.app.LaunchedSagas.processesUsing;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.StreamSupport;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.embedded.FreePorts;
import org.sagas.embedded.ScratchDirectory;

/**
 * {@code kill -9} of {@code ./sagas up} mid-load, then {@code ./sagas up} again on the same data
 * directory: nothing of the first run is left running, the second comes up by itself and finishes
 * every order the first accepted, charging none twice (ADR 0013).
 */
class CrashRestartIT {
    /**
     * A generous start: the first start initialises PostgreSQL and the broker, and in the suite it
     * shares two cores with another test JVM's cluster (a start took over 2 min there on a slow machine).
     */
    private static final Duration UP_WITHIN = Duration.ofSeconds(300);
    private static final Set<String> TERMINAL = Set.of("CONFIRMED", "CANCELLED", "REJECTED");

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private ScratchDirectory dataDir;
    private int apiPort;
    private int inventoryPort;
    private int paymentPort;
    private int fraudPort;
    private int adminPort;
    private LaunchedSagas running;

    @BeforeEach
    void freshDataDirectoryAndPorts() {
        dataDir = ScratchDirectory.create("sagas-crash-");
        apiPort = FreePorts.find();
        inventoryPort = FreePorts.find();
        paymentPort = FreePorts.find();
        fraudPort = FreePorts.find();
        adminPort = FreePorts.find();
    }

    @AfterEach
    void leaveNothingRunning() throws Exception {
        // A failed check must not leave the product, PostgreSQL or the broker behind.
        if (running != null && running.process().isAlive()) {
            running.stop(Duration.ofSeconds(90));
        }
        List<ProcessHandle> left = processesUsing(dataDir.path());
        left.forEach(ProcessHandle::destroy); // PostgreSQL: smart shutdown, its clients are gone
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> left.stream().noneMatch(ProcessHandle::isAlive));
        } finally {
            left.forEach(p -> {
                p.descendants().forEach(ProcessHandle::destroyForcibly);
                p.destroyForcibly();
            });
            dataDir.close();
        }
    }

    @Test
    void shouldStopPostgresAndTheBrokerWithAKilledLauncherAndFinishEveryOrderOnRestart() throws Exception {
        // Given ./sagas up on a data directory, taking orders, with the payment provider slow enough to have charges in flight
        Duration firstUp = up().awaitUp(UP_WITHIN);
        List<ProcessHandle> children = processesUsing(dataDir.path());
        assertThat(children).as("PostgreSQL, its reaper and the broker").hasSizeGreaterThanOrEqualTo(3);
        assertThat(secondStartOnTheSameDirectory()).as("a second ./sagas up on a data directory in use")
                .anySatisfy(line -> assertThat(line).startsWith("sagas: error: data directory " + dataDir.path()
                        + " is in use by another running sagas"));

        // When the launcher is killed (SIGKILL: no shutdown hook runs) while orders keep coming
        Map<UUID, String> accepted = submitUntilKilled(running::kill);

        // Then neither PostgreSQL nor the broker outlives it
        await("no process of the killed run").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> processesUsing(dataDir.path()).isEmpty());

        // And a restart on the same directory finishes every order it had accepted
        restartAndFinish(accepted, firstUp);
    }

    @Test
    void shouldEndThePostgresAKilledLauncherLeftAndFinishEveryOrderOnRestart() throws Exception {
        // Given ./sagas up on a data directory, taking orders
        Duration firstUp = up().awaitUp(UP_WITHIN);
        ProcessHandle reaper = processesUsing(dataDir.path()).stream()
                .filter(p -> p.info().commandLine().orElse("").contains("sagas-postgres-reaper")).findFirst()
                .orElseThrow(() -> new AssertionError("no PostgreSQL reaper among "
                        + describe(processesUsing(dataDir.path()))));

        // When the launcher dies together with the watch that would have stopped PostgreSQL
        Map<UUID, String> accepted = submitUntilKilled(() -> {
            reaper.destroyForcibly();
            running.kill();
        });

        // Then PostgreSQL is left running on the directory, as in the crash ADR 0013 starts from
        await("the broker ends with its parent").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(250))
                .until(() -> processesUsing(dataDir.path()).stream().noneMatch(CrashRestartIT::isBroker));
        assertThat(processesUsing(dataDir.path())).as("PostgreSQL left behind").anyMatch(CrashRestartIT::isPostgres);

        // And a restart ends it by itself, comes up, and finishes every accepted order
        List<String> output = restartAndFinish(accepted, firstUp);
        assertThat(output).anySatisfy(line -> assertThat(line).contains("WARN").contains("PostgreSQL of")
                .contains("its owner is gone"));
    }

    private List<String> restartAndFinish(Map<UUID, String> accepted, Duration firstUp) throws Exception {
        long restarted = System.nanoTime();
        Duration secondUp = up().awaitUp(UP_WITHIN);
        await("ready").atMost(Duration.ofSeconds(30)).until(() -> get(api("/health/ready")).statusCode() == 200);
        long settled = System.nanoTime();
        Map<UUID, String> statuses = awaitTerminal(accepted.keySet(), Duration.ofSeconds(240));
        System.out.printf("orders accepted before the kill: %d; first start %.1f s, restart to up %.1f s, "
                + "restart to every order terminal %.1f s (%.1f s after up); statuses %s%n", accepted.size(),
                firstUp.toMillis() / 1e3, secondUp.toMillis() / 1e3, (System.nanoTime() - restarted) / 1e9,
                (System.nanoTime() - settled) / 1e9, count(statuses));
        assertChargedAtMostOnceAndNothingHeld(statuses);

        // When the product is stopped cleanly, nothing of it is left
        assertThat(running.stop(Duration.ofSeconds(120))).as("clean stop within 120 s").isTrue();
        await("no process left after a clean stop").atMost(Duration.ofSeconds(30))
                .until(() -> processesUsing(dataDir.path()).isEmpty());
        return running.output();
    }

    private LaunchedSagas up() throws IOException {
        running = LaunchedSagas.launch(Map.ofEntries(Map.entry("SAGA_CONSUMER_THREADS", "2"),
                Map.entry("SAGA_INVENTORY_TIMEOUT_MS", "3000"), TestProduct.FEW_WARM_UP_ORDERS),
                "up", "--data-dir", dataDir.path().toString(), "--port", Integer.toString(apiPort),
                "--inventory-port", Integer.toString(inventoryPort), "--payment-port", Integer.toString(paymentPort),
                "--fraud-port", Integer.toString(fraudPort), "--admin-port", Integer.toString(adminPort));
        return running;
    }

    private List<String> secondStartOnTheSameDirectory() throws Exception {
        LaunchedSagas second = LaunchedSagas.launch(Map.of(), "up", "--data-dir", dataDir.path().toString(),
                "--port", Integer.toString(FreePorts.find()), "--inventory-port", Integer.toString(FreePorts.find()),
                "--payment-port", Integer.toString(FreePorts.find()), "--fraud-port", Integer.toString(FreePorts.find()),
                "--admin-port", Integer.toString(FreePorts.find()));
        assertThat(second.process().waitFor(90, TimeUnit.SECONDS)).as("second start ends").isTrue();
        assertThat(second.process().exitValue()).isNotZero();
        assertThat(get(api("/health/ready")).statusCode()).as("the first keeps running").isEqualTo(200);
        return second.output();
    }

    /**
     * Submits orders from two threads until {@code kill} has run (once 30 were accepted); returns
     * the orders answered 202, with their idempotency keys.
     */
    private Map<UUID, String> submitUntilKilled(Killer kill) throws Exception {
        String sku = "SKU-" + UUID.randomUUID().toString().substring(0, 8);
        assertThat(put(inventory("/stock/" + sku), "{\"available\":100000}").statusCode()).isEqualTo(200);
        assertThat(put(payments("/_faults"), "{\"latencyMs\":300}").statusCode()).isEqualTo(200);
        Map<UUID, String> accepted = new ConcurrentHashMap<>();
        AtomicBoolean killed = new AtomicBoolean();
        ExecutorService clients = Executors.newFixedThreadPool(2);
        try {
            for (int i = 0; i < 2; i++) {
                clients.execute(() -> {
                    while (!killed.get()) {
                        submit(sku, accepted);
                    }
                });
            }
            await("30 orders accepted").atMost(Duration.ofSeconds(60)).until(() -> accepted.size() >= 30);
            int awaitingPayment = TestProduct.read(get(api("/orders?status=AWAITING_PAYMENT&limit=1000")).body())
                    .size();
            assertThat(awaitingPayment).as("orders waiting for their charge just before the kill").isPositive();
            System.out.printf("killing with %d orders accepted, %d awaiting payment%n", accepted.size(),
                    awaitingPayment);
            kill.kill();
            killed.set(true);
        } finally {
            clients.shutdownNow();
            clients.awaitTermination(30, TimeUnit.SECONDS);
        }
        return Map.copyOf(accepted);
    }

    private void submit(String sku, Map<UUID, String> accepted) {
        String key = "crash-" + UUID.randomUUID();
        String body = "{\"customerId\":\"c-crash\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"" + sku
                + "\",\"quantity\":1,\"unitPriceCents\":990}]}";
        try {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(api("/orders")).timeout(Duration.ofSeconds(10))
                    .header("Content-Type", "application/json").header("Idempotency-Key", key)
                    .header("X-Deadline", Long.toString(System.currentTimeMillis() + 5000))
                    .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
            if (r.statusCode() == 202) {
                accepted.put(UUID.fromString(TestProduct.read(r.body()).get("orderId").asText()), key);
            }
        } catch (IOException e) {
            // the launcher is being killed: this request's outcome is unknown to the client, it is not counted
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Map<UUID, String> awaitTerminal(Set<UUID> orders, Duration within) {
        Map<UUID, String> statuses = new ConcurrentHashMap<>();
        await("every accepted order terminal").atMost(within).pollInterval(Duration.ofMillis(500)).until(() -> {
            for (UUID id : orders) {
                if (!TERMINAL.contains(statuses.getOrDefault(id, "unknown"))) {
                    statuses.put(id, TestProduct.read(get(api("/orders/" + id)).body()).path("status").asText());
                }
            }
            return statuses.values().stream().allMatch(TERMINAL::contains);
        });
        return statuses;
    }

    /** At most one capture per order, exactly one for a confirmed one, and no stock held for one that was not. */
    private void assertChargedAtMostOnceAndNothingHeld(Map<UUID, String> statuses) {
        SoftAssertions softly = new SoftAssertions();
        statuses.forEach((id, status) -> {
            long captured = countStatus(get(payments("/charges?orderId=" + id)), "CAPTURED");
            long held = countStatus(get(inventory("/reservations?orderId=" + id)), "RESERVED");
            softly.assertThat(captured).as("captures of %s (%s)", id, status).isLessThanOrEqualTo(1);
            softly.assertThat(captured).as("captures of %s (%s)", id, status).isEqualTo(status.equals("CONFIRMED") ? 1 : 0);
            softly.assertThat(held).as("reservations held for %s (%s)", id, status)
                    .isEqualTo(status.equals("CONFIRMED") ? 1 : 0);
        });
        softly.assertAll();
    }

    private static long countStatus(HttpResponse<String> ledger, String status) {
        assertThat(ledger.statusCode()).as(ledger.body()).isEqualTo(200);
        JsonNode entries = TestProduct.read(ledger.body());
        return StreamSupport.stream(entries.spliterator(), false)
                .filter(e -> status.equals(e.path("status").asText())).count();
    }

    private static Map<String, Long> count(Map<UUID, String> statuses) {
        Map<String, Long> counts = new HashMap<>();
        statuses.values().forEach(s -> counts.merge(s, 1L, Long::sum));
        return counts;
    }

    private static boolean isBroker(ProcessHandle p) {
        return p.info().commandLine().orElse("").contains("kafka.Kafka");
    }

    private static boolean isPostgres(ProcessHandle p) {
        return p.info().command().orElse("").endsWith("/postgres");
    }

    private URI api(String path) {
        return URI.create("http://127.0.0.1:" + apiPort + path);
    }

    private URI inventory(String path) {
        return URI.create("http://127.0.0.1:" + inventoryPort + path);
    }

    private URI payments(String path) {
        return URI.create("http://127.0.0.1:" + paymentPort + path);
    }

    private HttpResponse<String> get(URI uri) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET();
        if (uri.getPort() == inventoryPort || uri.getPort() == paymentPort) {
            // The ledgers ask for the token ./sagas up generated into its data directory.
            request.header("Authorization", "Bearer " + ledgerToken());
        }
        return send(request.build());
    }

    private String ledgerToken() {
        try {
            return java.nio.file.Files.readString(dataDir.path().resolve(SandboxSettings.TOKEN_FILE)).strip();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private HttpResponse<String> put(URI uri, String json) {
        return send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).header("Content-Type",
                "application/json").PUT(HttpRequest.BodyPublishers.ofString(json)).build());
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** What ends the first run. */
    @FunctionalInterface
    private interface Killer {
        void kill() throws InterruptedException;
    }
}
