package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sagas.embedded.FreePorts;
import org.sagas.orchestrator.Json;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * An {@code api} process added beside a running product (scale-out, a rolling
 * deploy) serves its very first order at speed once it reports ready, with inventory healthy.
 */
@RealInfrastructure
@RunsAlone
class ScaleOutFirstOrderIT {

    @Test
    void shouldNotParkTheFirstOrderOfAFreshApiProcessOnceItIsReady(TestInfra infra) throws Exception {
        // Given a running product whose inventory answers in 40 ms
        TestProduct product = TestProduct.shared(infra);
        String sku = Submissions.sku();
        product.stock(sku, 100);
        product.inventoryFaults("{\"latencyMs\":40}");
        int port = FreePorts.find();
        Path log = Files.createTempFile("sagas-api-", ".log");
        Process api = null;
        try {
            // When a second api process starts, cold, and reports ready
            List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                    .toString(), "-Xmx512m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                    Main.class.getName(), "api"));
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile()));
            builder.environment().keySet().removeIf(k -> k.startsWith("SAGA_"));
            builder.environment().put("SAGA_DB_URL", infra.jdbcUrl());
            builder.environment().put("SAGA_DB_USER", infra.user());
            builder.environment().put("SAGA_DB_PASSWORD", infra.password());
            builder.environment().put("SAGA_KAFKA_BOOTSTRAP", infra.bootstrapServers());
            builder.environment().put("SAGA_INVENTORY_URL", "http://127.0.0.1:" + product.settings().inventoryPort());
            builder.environment().put("SAGA_HTTP_PORT", Integer.toString(port));
            // Its operator API on any free port: 8090 may be taken on a shared machine.
            builder.environment().put("SAGA_ADMIN_PORT", "0");
            api = builder.start();
            Process running = api;
            URI base = URI.create("http://127.0.0.1:" + port);
            await().atMost(Duration.ofSeconds(120)).pollInterval(Duration.ofMillis(100))
                    .until(() -> !running.isAlive() || ready(product, base));
            assertThat(api.isAlive()).as("api process output: %s", Files.readString(log)).isTrue();

            // and its first order comes within the API's own 500 ms budget
            HttpResponse<String> first = product.http.send(HttpRequest.newBuilder(base.resolve("/orders"))
                    .timeout(Duration.ofSeconds(10)).header("Content-Type", "application/json")
                    .header("Idempotency-Key", Submissions.key())
                    .POST(HttpRequest.BodyPublishers.ofString(TestProduct.order("scale-out", sku, 1, 100))).build(),
                    HttpResponse.BodyHandlers.ofString());

            // Then it reserved the stock: not parked (DEADLINE_TOO_SHORT, TIMEOUT) on a healthy inventory
            JsonNode body = Json.mapper().readTree(first.body());
            assertThat(first.statusCode()).as(first.body()).isEqualTo(202);
            assertThat(body.path("status").asText()).as("first order of a fresh api process; its log: %s",
                    Files.readString(log)).isEqualTo("AWAITING_PAYMENT");
            assertThat(Files.readString(log)).contains("warm-up:").doesNotContain("pending confirmation");
        } finally {
            product.inventoryFaults("{\"latencyMs\":0}");
            if (api != null) {
                api.destroy();
                api.waitFor();
            }
            Files.deleteIfExists(log);
        }
    }

    private static boolean ready(TestProduct product, URI base) {
        try {
            return product.http.send(HttpRequest.newBuilder(base.resolve("/health/ready"))
                    .timeout(Duration.ofSeconds(2)).GET().build(), HttpResponse.BodyHandlers.discarding())
                    .statusCode() == 200;
        } catch (Exception e) {
            return false;
        }
    }
}
