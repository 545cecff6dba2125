package org.sagas.reconciler;

import org.sagas.orchestrator.lifecycle.JobListener;
import org.sagas.orchestrator.messaging.KafkaConnection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.sandbox.InventorySandbox;
import org.sagas.sandbox.SandboxAccess;
import org.sagas.sandbox.PaymentSandbox;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** The ledger puller on the real sandbox, broker and PostgreSQL: every entry once, across restarts and rivals. */
@RealInfrastructure
class LedgerPullerIT {
    private static final HttpClient HTTP = HttpClient.newHttpClient();
    private static final String TOKEN = UUID.randomUUID().toString();
    private static DataSource dataSource;
    private static PaymentSandbox payments;
    private static InventorySandbox inventory;
    private static String bootstrap;

    @BeforeAll
    static void start(TestInfra infra) {
        dataSource = infra.dataSource(10);
        Migrations.apply(dataSource);
        bootstrap = infra.bootstrapServers();
        KafkaTopics.ensure(bootstrap);
        // The ledgers ask for the token; the controls stock a SKU below.
        SandboxAccess access = SandboxAccess.of(true, TOKEN);
        payments = PaymentSandbox.start(dataSource, "127.0.0.1", 0, access);
        inventory = InventorySandbox.start(dataSource, "127.0.0.1", 0, access);
    }

    @AfterAll
    static void stop() {
        payments.close();
        inventory.close();
    }

    @Test
    void shouldCopyEveryChargeOnceAcrossARestartAndWithARivalInstance() {
        // Given charges at the provider, one of them refunded, and a reservation at inventory
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            keys.add(charge());
        }
        post(payments.port(), "/refunds", "{\"chargeKey\":\"" + keys.get(0) + "\"}", keys.get(0) + ":refund");
        String order = UUID.randomUUID().toString();
        inventoryStock("PULL-1", 5);
        post(inventory.port(), "/reservations", "{\"orderId\":\"" + order
                + "\",\"lines\":[{\"sku\":\"PULL-1\",\"quantity\":1}]}", order + ":reserve");
        // When two pullers run side by side (only one may pull), and then one is restarted after more charges
        LedgerPuller first = puller();
        LedgerPuller rival = puller();
        await().atMost(Duration.ofSeconds(30)).until(() -> position("charges") != null && position("reservations") != null);
        first.close();
        for (int i = 0; i < 3; i++) {
            keys.add(charge());
        }
        LedgerPuller restarted = puller();
        try {
            // Then each charge reaches ledger.charges exactly once, in its latest state
            Set<String> mine = new HashSet<>(keys);
            List<ConsumerRecord<String, String>> copied = KafkaTopics.read(bootstrap, Topics.LEDGER_CHARGES,
                    mine::contains, keys.size(), Duration.ofSeconds(8));
            assertThat(copied).extracting(ConsumerRecord::key).containsExactlyInAnyOrderElementsOf(keys);
            assertThat(copied.stream().filter(r -> r.key().equals(keys.get(0))).findFirst().orElseThrow().value())
                    .contains("REFUNDED");
            assertThat(KafkaTopics.read(bootstrap, Topics.LEDGER_RESERVATIONS, (order + ":reserve")::equals, 1,
                    Duration.ofSeconds(3))).hasSize(1);
        } finally {
            rival.close();
            restarted.close();
        }
    }

    /** A puller, started. */
    private static LedgerPuller puller() {
        LedgerPuller puller = new LedgerPuller(Map.of(
                LedgerPuller.Feed.CHARGES, new LedgerPuller.Source(URI.create("http://127.0.0.1:" + payments.port()), TOKEN),
                LedgerPuller.Feed.RESERVATIONS, new LedgerPuller.Source(URI.create("http://127.0.0.1:" + inventory.port()),
                        TOKEN)), dataSource,
                KafkaConnection.plaintext(bootstrap), Duration.ofMillis(100), new SimpleMeterRegistry(), JobListener.NONE);
        puller.start();
        return puller;
    }

    private static String position(String feed) {
        return Jdbi.create(dataSource).withHandle(h -> h.createQuery(
                "SELECT position FROM reconciler_feed_position WHERE feed = :f").bind("f", feed)
                .mapTo(String.class).findOne().orElse(null));
    }

    private static String charge() {
        String key = "pull-" + UUID.randomUUID();
        post(payments.port(), "/charges", Json.write(Map.of("orderId", UUID.randomUUID().toString(),
                "amountCents", 100, "currency", "EUR")), key);
        return key;
    }

    private static void inventoryStock(String sku, int available) {
        send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + inventory.port() + "/stock/" + sku))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"available\":" + available + "}")).build());
    }

    private static void post(int port, String path, String body, String key) {
        HttpResponse<String> r = send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .header("Content-Type", "application/json").header("Idempotency-Key", key)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
    }

    private static HttpResponse<String> send(HttpRequest request) {
        try {
            return HTTP.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
