package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowable;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
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
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.embedded.KafkaBroker;
import org.sagas.embedded.ScratchDirectory;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * On a broker that authenticates (SASL/SCRAM) and authorizes (ACLs per role), a payment reply
 * forged by anyone but the relay is refused by the broker and the order it names does not move;
 * the product itself, signed in, still takes and confirms orders (docs/security.md, ADR 0022).
 */
@RealInfrastructure
class KafkaAccessIT {
    private static final String SUPER_PASSWORD = "super-user-password-" + UUID.randomUUID();
    private static ScratchDirectory dir;
    private static KafkaBroker broker;
    private static final Map<String, String> passwords = new HashMap<>();

    @BeforeAll
    static void securedBroker() throws IOException {
        dir = ScratchDirectory.create("sagas-kafka-acl-");
        broker = new KafkaBroker(dir.path(), 0).secured(SUPER_PASSWORD).start();
        // As an operator sets a cluster up: ./sagas kafka-access, signed in as the super user
        Path roles = dir.path().resolve("role-passwords");
        Files.createDirectories(roles);
        for (KafkaAccess role : KafkaAccess.all()) {
            passwords.put(role.user(), UUID.randomUUID().toString());
            Files.writeString(roles.resolve(role.role()), passwords.get(role.user()) + "\n");
        }
        Map<String, String> env = Map.of("SAGA_KAFKA_BOOTSTRAP", broker.bootstrapServers(),
                "SAGA_KAFKA_USER", KafkaBroker.SUPER_USER, "SAGA_KAFKA_PASSWORD", SUPER_PASSWORD,
                "SAGA_KAFKA_ROLE_CREDENTIALS_DIR", roles.toString());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        assertThat(KafkaAccess.setUp(Settings.from(env::get, Map.of()), new PrintStream(out))).isZero();
        assertThat(out.toString()).contains("sagas-relay");
        // ... and a user for this test's one process that runs every role
        try (Admin admin = Admin.create(superUser())) {
            passwords.put("sagas-product", UUID.randomUUID().toString());
            KafkaAccess.grant(admin, "sagas-product", passwords.get("sagas-product"), KafkaAccess.all());
        }
    }

    @AfterAll
    static void stop() {
        if (broker != null) {
            broker.close();
        }
        if (dir != null) {
            dir.close();
        }
    }

    @Test
    void shouldRefuseAForgedPaymentReplyAndLeaveTheOrderUnpaid(TestInfra infra) {
        Map<String, String> env = TestProduct.environment(infra);
        env.put("SAGA_KAFKA_BOOTSTRAP", broker.bootstrapServers());
        env.put("SAGA_KAFKA_USER", "sagas-product");
        env.put("SAGA_KAFKA_PASSWORD", passwords.get("sagas-product"));
        // The order must still be waiting for its charge after five forgeries and the look that
        // follows them (each refused write can take seconds on a busy machine): the payment step's
        // own timeout, which would make it PAYMENT_UNKNOWN meanwhile, is not this test's subject.
        env.put("SAGA_PAYMENT_STEP_TIMEOUT_MS", "120000");
        try (TestProduct product = TestProduct.alone(env)) {
            // Given an order waiting for its charge while the payment provider is down
            product.stock("SKU-ACL", 10);
            product.paymentFaults("{\"down\":true}");
            UUID orderId = TestProduct.orderId(product.submit("acl-1", TestProduct.order("c-acl", "SKU-ACL", 1, 500)));
            product.awaitStatus(orderId, "AWAITING_PAYMENT", Duration.ofSeconds(20));

            // When anyone but the relay writes a PaymentCaptured for it
            Throwable anonymous = forge(orderId, KafkaConnection.plaintext(broker.bootstrapServers()).config());
            Throwable wrongPassword = forge(orderId, KafkaConnection.scram(broker.bootstrapServers(),
                    KafkaAccess.PAYMENT_WORKER.user(), "not-the-password").config());
            Throwable sagaWorker = forge(orderId, signedIn(KafkaAccess.SAGA_WORKER));
            Throwable api = forge(orderId, signedIn(KafkaAccess.API));
            Throwable paymentWorker = forge(orderId, signedIn(KafkaAccess.PAYMENT_WORKER));

            // Then the broker refuses every one, and the order stays unpaid
            assertThat(anonymous).isInstanceOf(TimeoutException.class); // a plaintext client never gets through
            assertThat(wrongPassword).isInstanceOf(SaslAuthenticationException.class);
            assertThat(Arrays.asList(sagaWorker, api, paymentWorker)).allMatch(TopicAuthorizationException.class::isInstance);
            await().during(Duration.ofSeconds(3)).atMost(Duration.ofSeconds(5))
                    .until(() -> "AWAITING_PAYMENT".equals(product.status(orderId)));
            assertThat(product.charges(orderId)).isEmpty();

            // And the real charge, published by the relay, still confirms it once the provider is back
            product.paymentFaults("{\"down\":false}");
            product.awaitStatus(orderId, "CONFIRMED", Duration.ofSeconds(60));
            assertThat(product.charges(orderId)).hasSize(1);
        }
    }

    @Test
    void shouldLetOnlyTheRelayWriteCommandsAndReplies() {
        for (KafkaAccess role : KafkaAccess.all()) {
            for (String topic : List.of(Topics.PAYMENTS_COMMANDS, Topics.PAYMENTS_EVENTS)) {
                Throwable refused = write(signedIn(role), topic, "probe-" + UUID.randomUUID(), "{}");
                boolean mayWrite = role == KafkaAccess.RELAY
                        || (role == KafkaAccess.API && topic.equals(Topics.PAYMENTS_COMMANDS)); // redrive
                assertThat(refused).as(role + " writing " + topic)
                        .satisfies(t -> assertThat(t == null).isEqualTo(mayWrite));
            }
        }
    }

    private static Throwable forge(UUID orderId, Map<String, Object> client) {
        return write(client, Topics.PAYMENTS_EVENTS, orderId.toString(),
                "{\"orderId\":\"" + orderId + "\",\"idempotencyKey\":\"" + orderId + ":charge\"}");
    }

    /** Null if the record was written, else why not. */
    private static Throwable write(Map<String, Object> client, String topic, String key, String value) {
        Map<String, Object> config = new HashMap<>(client);
        config.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 3_000);
        config.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 3_000);
        config.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 2_000);
        config.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(config, new StringSerializer(),
                new StringSerializer())) {
            ProducerRecord<String, String> record = new ProducerRecord<>(topic, key, value);
            record.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
            record.headers().add(Topics.MESSAGE_TYPE, "PaymentCaptured".getBytes(StandardCharsets.UTF_8));
            record.headers().add(Topics.CORRELATION_ID, key.getBytes(StandardCharsets.UTF_8));
            Throwable failure = catchThrowable(() -> producer.send(record).get(10, TimeUnit.SECONDS));
            return failure instanceof ExecutionException e ? e.getCause() : failure;
        }
    }

    private static Map<String, Object> signedIn(KafkaAccess role) {
        return KafkaConnection.scram(broker.bootstrapServers(), role.user(), passwords.get(role.user())).config();
    }

    private static Map<String, Object> superUser() {
        Map<String, Object> config = new HashMap<>(broker.superUserConfig());
        config.put("bootstrap.servers", broker.bootstrapServers());
        return config;
    }
}
