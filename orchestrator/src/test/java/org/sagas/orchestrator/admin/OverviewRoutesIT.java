package org.sagas.orchestrator.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicReference;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.EdgeLimits;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.resilience.CircuitState;
import org.sagas.orchestrator.saga.SagaEngine;
import org.sagas.orchestrator.saga.SagaTimings;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * {@code GET /admin/overview} on a real database with its outside sources given: every figure
 * from where it is kept, a source that fails shown as unavailable without blanking the rest, and
 * one answer per second for every console (terminal statuses per 30 s), on a clock the test moves.
 */
@RealInfrastructure
class OverviewRoutesIT {
    private static final String TOKEN = "overview-test-token";
    private static final AtomicReference<Instant> now = new AtomicReference<>(Instant.now());
    private static Jdbi jdbi;
    private static AdminServer server;
    private static final HttpClient http = HttpClient.newHttpClient();

    @BeforeAll
    static void start(TestInfra infra) {
        DataSource ds = infra.dataSource(4);
        Migrations.apply(ds);
        jdbi = Jdbi.create(ds);
        Clock clock = new Clock() {
            @Override
            public ZoneOffset getZone() {
                return ZoneOffset.UTC;
            }

            @Override
            public Clock withZone(java.time.ZoneId zone) {
                return this;
            }

            @Override
            public Instant instant() {
                return now.get();
            }
        };
        SagaEngine engine = new SagaEngine(jdbi, clock, new SagaTimings(Duration.ofSeconds(1), Duration.ofSeconds(1),
                Duration.ofMinutes(15)), () -> {});
        OverviewSources sources = new OverviewSources() {
            @Override
            public Map<String, Optional<CircuitState>> breakers() {
                return Map.of("payment", Optional.empty(), "inventory", Optional.of(CircuitState.OPEN));
            }

            @Override
            public Backlog outbox() {
                return new Backlog(3, 4_500, 1);
            }

            @Override
            public Map<String, Long> openFindings() {
                return Map.of("AMOUNT_MISMATCH", 2L);
            }
        };
        server = AdminServer.start(new AdminServer.Config("127.0.0.1", 0, AdminTokens.operator(TOKEN), false,
                Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(15), EdgeLimits.defaults(),
                SessionPolicy.defaults(), FailureLimit.defaults()),
                new AdminServer.Parts(jdbi, engine, new OrderStore(jdbi), new NoParticipants(), new NoOutboxDeadLetters(),
                        new KafkaAway(), clock, ReconciliationFindings.NONE, sources, new SimpleMeterRegistry(),
                        new org.sagas.orchestrator.saga.SagaFleet(jdbi, engine, Duration.ofSeconds(10))));
    }

    @AfterAll
    static void stop() {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void shouldShowEveryFigureAndSayWhichSourceIsUnavailable() throws Exception {
        // Given two pending orders (the older two minutes old), one of them an incident, and a confirmed one
        tick(Duration.ofMinutes(1));
        JsonNode before = overview();
        order("PENDING_CONFIRMATION", 120, "PARTICIPANT_REFUSED");
        order("PENDING_CONFIRMATION", 10, null);
        order("CONFIRMED", 300, null);
        tick(Duration.ofMinutes(1));

        // When the overview is read, with Kafka away
        JsonNode o = overview();

        // Then the database's figures are there, each source's, and Kafka's part is marked unavailable
        assertThat(o.path("orders").path("PENDING_CONFIRMATION").asLong())
                .isEqualTo(before.path("orders").path("PENDING_CONFIRMATION").asLong() + 2);
        assertThat(o.path("orders").path("CONFIRMED").asLong())
                .isEqualTo(before.path("orders").path("CONFIRMED").asLong() + 1);
        assertThat(o.path("orders").path("REJECTED").asLong()).isZero();
        assertThat(o.path("pendingConfirmation").path("count").asLong())
                .isEqualTo(o.path("orders").path("PENDING_CONFIRMATION").asLong());
        assertThat(o.path("pendingConfirmation").path("oldestAgeSeconds").asLong()).isGreaterThanOrEqualTo(120);
        assertThat(o.path("pendingConfirmation").path("oldestCreatedAt").asText()).endsWith("Z");
        assertThat(o.path("incidents").path("PARTICIPANT_REFUSED").asLong())
                .isEqualTo(before.path("incidents").path("PARTICIPANT_REFUSED").asLong() + 1);
        assertThat(o.path("breakers").findValuesAsText("dependency")).containsExactly("inventory", "payment");
        assertThat(o.path("breakers").findValuesAsText("state")).containsExactly("OPEN", OverviewRoutes.NO_BREAKER);
        assertThat(o.path("outbox").path("pendingRows").asLong()).isEqualTo(3);
        assertThat(o.path("outbox").path("oldestAgeMillis").asLong()).isEqualTo(4_500);
        assertThat(o.path("openFindings").path("AMOUNT_MISMATCH").asLong()).isEqualTo(2);
        assertThat(o.path("kafkaDeadLetters").isNull()).isTrue();
        assertThat(o.path("unavailable").path("kafkaDeadLetters").asText()).contains("broker not reachable");
    }

    @Test
    void shouldServeOneAnswerPerSecondAndCountTerminalStatusesEveryThirtySeconds() throws Exception {
        // Given an overview just read
        tick(Duration.ofMinutes(1));
        JsonNode first = overview();
        long pending = first.path("orders").path("PENDING_CONFIRMATION").asLong();
        long confirmed = first.path("orders").path("CONFIRMED").asLong();

        // When an order is pending and another confirmed, the same second
        order("PENDING_CONFIRMATION", 1, null);
        order("CONFIRMED", 1, null);
        // Then the answer is the same one
        assertThat(overview().path("at").asText()).isEqualTo(first.path("at").asText());

        // When a second has passed: the open statuses are counted again, the terminal ones not yet
        tick(Duration.ofSeconds(1));
        JsonNode second = overview();
        assertThat(second.path("orders").path("PENDING_CONFIRMATION").asLong()).isEqualTo(pending + 1);
        assertThat(second.path("orders").path("CONFIRMED").asLong()).isEqualTo(confirmed);

        // When thirty seconds have passed: the terminal ones too
        tick(Duration.ofSeconds(30));
        assertThat(overview().path("orders").path("CONFIRMED").asLong()).isEqualTo(confirmed + 1);
    }

    private static void tick(Duration d) {
        now.updateAndGet(t -> t.plus(d));
    }

    private static JsonNode overview() throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port()
                + "/admin/overview")).header("Authorization", "Bearer " + TOKEN).GET().build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        return Json.mapper().readTree(r.body());
    }

    /** An order and its saga as the engine would have stored them, {@code ageSeconds} old. */
    private static UUID order(String status, int ageSeconds, String incident) {
        UUID id = UUID.randomUUID();
        boolean terminal = status.equals("CONFIRMED");
        jdbi.useHandle(h -> {
            // The orders are a view of the order sagas (V11): the order is its saga's data and label.
            h.createUpdate("INSERT INTO saga_instance (saga_id, saga_type, status, step, label, version, data, parked_on,"
                    + " created_at, updated_at, incident_cause, incident_detail, incident_at) VALUES (:id, 'order',"
                    + " :saga, 'RESERVE_STOCK', :status, 1, '{\"customerId\":\"c-1\",\"currency\":\"EUR\","
                    + "\"totalCents\":100,\"lines\":[]}'::jsonb, :parkedOn, now() - make_interval(secs => :age),"
                    + " now(), :incident,"
                    + " CASE WHEN CAST(:incident AS text) IS NULL THEN NULL ELSE 'test' END,"
                    + " CASE WHEN CAST(:incident AS text) IS NULL THEN NULL ELSE now() END)")
                    .bind("id", id).bind("saga", terminal ? "COMPLETED" : "PARKED").bind("status", status)
                    .bind("parkedOn", terminal ? null : "inventory").bind("age", ageSeconds)
                    .bind("incident", incident).execute();
        });
        return id;
    }

    private static final class NoParticipants implements ParticipantViews {
        @Override
        public JsonNode reservations(UUID orderId, Duration timeout) {
            return Json.mapper().createArrayNode();
        }

        @Override
        public JsonNode charges(UUID orderId, Duration timeout) {
            return Json.mapper().createArrayNode();
        }
    }

    private static final class NoOutboxDeadLetters implements OutboxDeadLetterPort {
        @Override
        public long count() {
            return 0;
        }

        @Override
        public List<?> list(int limit) {
            return List.of();
        }

        @Override
        public boolean replay(long id) {
            return false;
        }

        @Override
        public boolean discard(long id) {
            return false;
        }
    }

    /** Kafka that cannot be reached, as when the broker is down. */
    private static final class KafkaAway implements KafkaDeadLetters {
        @Override
        public List<Topic> topics() {
            throw new IllegalStateException("broker not reachable");
        }

        @Override
        public List<Record> records(String topic, int limit) {
            throw new IllegalStateException("broker not reachable");
        }

        @Override
        public Optional<Record> record(String topic, int partition, long offset) {
            throw new IllegalStateException("broker not reachable");
        }

        @Override
        public Redriven redrive(Record record) {
            throw new IllegalStateException("broker not reachable");
        }
    }
}
