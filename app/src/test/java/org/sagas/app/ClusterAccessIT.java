package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.app.cluster.RoleProcess;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.Topics;

/**
 * {@code ./sagas cluster}'s three brokers take only clients that sign in, and each role only its
 * own work (docs/security.md, "Who may write to Kafka"): a payment reply written by nobody, or as
 * a role that may not write it, is refused, while the roles, each signed in as its own user with
 * its password in a file, confirm an order placed through the front, also after a broker was
 * killed and came back. Each role also logs in to PostgreSQL as its own role with only its grants
 * (docs/security.md, "Deployment"), and no role's log shows a refusal. One cluster of one process per role for the whole class.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ClusterAccessIT {
    private static final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private static Cluster cluster;
    private static String printed;

    @BeforeAll
    static void startCluster() {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        cluster = Cluster.start(Settings.from(Map.<String, String>of()::get, Map.of()), new Cluster.Shape(1, 3, 0),
                new PrintStream(out, true, StandardCharsets.UTF_8), Map.ofEntries(TestProduct.FEW_WARM_UP_ORDERS));
        printed = out.toString(StandardCharsets.UTF_8);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    @Order(1)
    void shouldStartEachRoleAsItsOwnUserWithItsPasswordInAnOwnerOnlyFile() throws IOException {
        // Given the cluster up, what it printed says the brokers want sign-in and where the passwords are
        Path credentials = cluster.credentials().directory();
        assertThat(printed).contains("sign-in required").contains(credentials.toString())
                .contains("SAGA_KAFKA_USER=sagas-admin SAGA_KAFKA_PASSWORD_FILE=" + cluster.credentials().superPasswordFile());
        assertThat(Files.getPosixFilePermissions(credentials)).isEqualTo(PosixFilePermissions.fromString("rwx------"));

        for (RoleProcess p : cluster.processes()) {
            // Then each process signs in as its role's user, its password read from a file of its own
            KafkaAccess role = KafkaAccess.of(p.role());
            Path file = cluster.credentials().passwordFile(role);
            String password = Files.readString(file).strip();
            assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
            List<String> env = List.of(Files.readString(Path.of("/proc", Long.toString(p.pid()), "environ"))
                    .split("\0"));
            assertThat(env).as(p.name()).contains("SAGA_KAFKA_USER=" + role.user(), "SAGA_KAFKA_PASSWORD_FILE=" + file)
                    .noneMatch(v -> v.startsWith("SAGA_KAFKA_PASSWORD=") || v.contains(password));
            assertThat(ProcessHandle.of(p.pid()).orElseThrow().info().commandLine().orElse("")).doesNotContain(password);
        }
    }

    @Test
    @Order(1)
    void shouldLogEachRoleInToPostgresqlAsItsOwnRoleWithOnlyItsGrants() throws Exception {
        // Given the cluster up, the schema belongs to its owner, not to the superuser the launcher is
        assertThat(printed).contains("migrations applied as " + DatabaseRoles.OWNER)
                .contains(cluster.database().directory().toString());
        assertThat(Files.getPosixFilePermissions(cluster.database().directory()))
                .isEqualTo(PosixFilePermissions.fromString("rwx------"));
        Settings superuser = cluster.infrastructure();
        try (Connection c = DriverManager.getConnection(superuser.dbUrl(), superuser.dbUser(), superuser.dbPassword());
                Statement s = c.createStatement()) {
            assertThat(one(s, "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'saga_instance'::regclass"))
                    .isEqualTo(DatabaseRoles.OWNER);
            assertThat(one(s, "SELECT has_table_privilege('sagas_relay', 'idempotency_keys', 'SELECT')")).isEqualTo("f");

            for (RoleProcess p : cluster.processes()) {
                if (!DatabaseRoles.PRODUCT_ROLES.contains(p.role())) {
                    continue; // the sandbox stands in for the participants' own systems
                }
                // Then each product process logs in as its role's user, its password read from a file of its own
                String user = DatabaseRoles.user(p.role());
                Path file = cluster.database().passwordFile(user);
                String password = Files.readString(file).strip();
                assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
                List<String> env = List.of(Files.readString(Path.of("/proc", Long.toString(p.pid()), "environ"))
                        .split("\0"));
                assertThat(env).as(p.name()).contains("SAGA_DB_USER=" + user, "SAGA_DB_PASSWORD_FILE=" + file)
                        .noneMatch(v -> v.startsWith("SAGA_DB_PASSWORD=") || v.contains(password));
            }
            // And PostgreSQL sees the product's connections under those users, none as the superuser
            List<String> users = new java.util.ArrayList<>();
            try (ResultSet rs = s.executeQuery("SELECT DISTINCT usename FROM pg_stat_activity"
                    + " WHERE application_name = '" + Node.APPLICATION + "' AND pid <> pg_backend_pid()")) {
                while (rs.next()) {
                    users.add(rs.getString(1));
                }
            }
            assertThat(users).containsExactlyInAnyOrderElementsOf(
                    DatabaseRoles.PRODUCT_ROLES.stream().map(DatabaseRoles::user).toList());
        }
    }

    @Test
    @Order(2)
    void shouldRefuseAPaymentReplyFromNobodyAndFromRolesThatMayNotWriteIt() {
        String bootstrap = cluster.infrastructure().kafkaBootstrap();
        // When a PaymentCaptured is written without signing in, or as the api or the saga worker
        Throwable anonymous = forge(KafkaConnection.plaintext(bootstrap).config());
        Throwable api = forge(signedIn(KafkaAccess.API));
        Throwable sagaWorker = forge(signedIn(KafkaAccess.SAGA_WORKER));

        // Then every broker refuses it
        assertThat(anonymous).isInstanceOf(TimeoutException.class); // a plaintext client never gets through
        assertThat(api).isInstanceOf(TopicAuthorizationException.class);
        assertThat(sagaWorker).isInstanceOf(TopicAuthorizationException.class);
    }

    @Test
    @Order(3)
    void shouldConfirmAnOrderThroughTheFrontAfterABrokerWasKilledAndCameBack() throws Exception {
        // Given a broker killed, as chaos does, and started again on its data
        cluster.brokers().member(1).kill();
        cluster.brokers().member(1).start();
        try (Admin admin = Admin.create(cluster.infrastructure().kafka().config())) {
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS)).hasSize(3);
        }

        // When an order is placed through the front
        send(HttpRequest.newBuilder(URI.create(cluster.inventoryUrl() + "/stock/SKU-CLUSTER-ACL"))
                .header("Content-Type", "application/json").PUT(HttpRequest.BodyPublishers.ofString("{\"available\":5}")));
        HttpResponse<String> placed = send(HttpRequest.newBuilder(URI.create(cluster.apiUrl() + "/orders"))
                .header("Content-Type", "application/json").header("Idempotency-Key", "cluster-acl-1")
                .POST(HttpRequest.BodyPublishers.ofString(TestProduct.order("c-cluster-acl", "SKU-CLUSTER-ACL", 1, 700))));
        assertThat(placed.statusCode()).as(placed.body()).isEqualTo(202);
        UUID orderId = TestProduct.orderId(placed);

        // Then the roles, each signed in as its own user, confirm it
        await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofMillis(500)).until(() -> "CONFIRMED".equals(
                Json.mapper().readTree(send(HttpRequest.newBuilder(URI.create(cluster.apiUrl() + "/orders/" + orderId))
                        .GET()).body()).path("status").asText()));

        // And no role was refused anything on its way: its ACLs and its grants are all it needs
        for (RoleProcess p : cluster.processes()) {
            assertThat(Files.readString(p.log())).as(p.log().toString())
                    .doesNotContain("AuthorizationException").doesNotContain("AuthenticationException")
                    .doesNotContainIgnoringCase("permission denied");
        }
    }

    private static String one(Statement s, String sql) throws SQLException {
        try (ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    private static Map<String, Object> signedIn(KafkaAccess role) {
        try {
            String password = Files.readString(cluster.credentials().passwordFile(role)).strip();
            return KafkaConnection.scram(cluster.infrastructure().kafkaBootstrap(), role.user(), password).config();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** Null if the forged reply was written, else why not. */
    private static Throwable forge(Map<String, Object> client) {
        Map<String, Object> config = new HashMap<>(client);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 3_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        String orderId = UUID.randomUUID().toString();
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                new StringSerializer())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(Topics.PAYMENTS_EVENTS, orderId,
                    "{\"orderId\":\"" + orderId + "\",\"idempotencyKey\":\"" + orderId + ":charge\"}");
            record.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
            record.headers().add(Topics.MESSAGE_TYPE, "PaymentCaptured".getBytes(StandardCharsets.UTF_8));
            record.headers().add(Topics.CORRELATION_ID, orderId.getBytes(StandardCharsets.UTF_8));
            Throwable failure = catchThrowable(() -> producer.send(record).get(10, TimeUnit.SECONDS));
            return failure instanceof ExecutionException e ? e.getCause() : failure;
        }
    }

    private static HttpResponse<String> send(HttpRequest.Builder request) throws IOException, InterruptedException {
        return http.send(request.timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
