package org.sagas.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.relay.internal.Housekeeping;
import org.sagas.relay.support.Tables;
import org.sagas.relay.support.TopicReader;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;
import org.slf4j.LoggerFactory;

@RealInfrastructure
class PoisonRowIT {
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();
    private final Logger housekeepingLog = (Logger) LoggerFactory.getLogger(Housekeeping.class);

    @BeforeEach
    void captureLogs() {
        logged.start();
        housekeepingLog.addAppender(logged);
    }

    @AfterEach
    void releaseLogs() {
        housekeepingLog.detachAppender(logged);
    }

    @Test
    void shouldDeadLetterRefusedRowsHoldBackTheirAggregateAndLetOthersFlow(TestInfra infra) throws Exception {
        // Given a topic whose broker limit is 2 000 bytes per record and one with the default limit
        DataSource dataSource = infra.dataSource(6);
        Migrations.apply(dataSource);
        String events = infra.createTopic(infra.topic("orders.events"), 4);
        String small = infra.topic("payments.commands");
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(small, 1, (short) 1).configs(Map.of("max.message.bytes", "2000"))))
                    .all().get(30, TimeUnit.SECONDS);
        }
        // and rows: order-a's second one too big for the broker, order-c's first too big for the
        // producer (over 1 MB), order-b's all fine
        insert(dataSource, "order-a", events, "order-a:1");
        long brokerRefused = insert(dataSource, "order-a", small, "x".repeat(5_000));
        insert(dataSource, "order-a", events, "order-a:3");
        long producerRefused = insert(dataSource, "order-c", events, "y".repeat(1_100_000));
        insert(dataSource, "order-c", events, "order-c:2");
        for (int i = 1; i <= 5; i++) {
            insert(dataSource, "order-b", events, "order-b:" + i);
        }
        MeterRegistry registry = new SimpleMeterRegistry();
        OutboxDeadLetters deadLetters = new OutboxDeadLetters(dataSource);
        try (TopicReader reader = new TopicReader(infra.bootstrapServers(), events);
                TopicReader smallReader = new TopicReader(infra.bootstrapServers(), small);
                OutboxRelay relay = OutboxRelay.builder().dataSource(dataSource)
                        .bootstrapServers(infra.bootstrapServers()).meterRegistry(registry).instanceId("poison")
                        .metricsInterval(Duration.ofMillis(200)).build()) {
            // When the relay runs
            relay.start();

            // Then the refused rows are dead letters with the producer's error
            await().atMost(Duration.ofSeconds(30)).until(() -> deadLetters.count() == 2);
            List<DeadLetter> dead = deadLetters.list(10);
            assertThat(dead).extracting(DeadLetter::id).containsExactly(brokerRefused, producerRefused);
            assertThat(dead).allSatisfy(d -> assertThat(d.error()).startsWith("RecordTooLargeException"));
            assertThat(dead.get(0).aggregateId()).isEqualTo("order-a");
            assertThat(dead.get(0).topic()).isEqualTo(small);
            assertThat(dead.get(0).payloadBytes()).isEqualTo(5_000);
            assertThat(dead.get(0).payloadPreview()).hasSize(OutboxDeadLetters.PREVIEW_CHARS);
            assertThat(dead.get(1).relayInstance()).isEqualTo("poison");
            // and the other aggregates' rows flow, written before and after the poison
            insert(dataSource, "order-b", events, "order-b:6");
            relay.wakeUp();
            await().atMost(Duration.ofSeconds(30)).until(() -> values(reader).containsAll(List.of("order-a:1",
                    "order-b:1", "order-b:2", "order-b:3", "order-b:4", "order-b:5", "order-b:6")));
            // while the refused aggregates' later rows wait, visibly: metric and log line
            await().atMost(Duration.ofSeconds(10)).until(() -> gauge(registry, "outbox.blocked.aggregates") == 2
                    && gauge(registry, "outbox.dead.letters") == 2 && gauge(registry, "outbox.pending.rows") == 2);
            assertThat(gauge(registry, "outbox.oldest.age")).isGreaterThan(0);
            assertThat(values(reader)).doesNotContain("order-a:3", "order-c:2");
            assertThat(Tables.outboxRows(dataSource)).isEqualTo(2);
            await().atMost(Duration.ofSeconds(5)).until(() -> logged.list.stream().map(ILoggingEvent::getFormattedMessage)
                    .anyMatch(m -> m.contains("aggregate order-a is blocked") && m.contains("RecordTooLargeException")));

            // When the operator raises the topic's limit and replays order-a's, and discards order-c's
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    infra.bootstrapServers()))) {
                admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, small), List.of(
                        new AlterConfigOp(new ConfigEntry("max.message.bytes", "100000"), AlterConfigOp.OpType.SET))))
                        .all().get(30, TimeUnit.SECONDS);
            }
            long releasedAt = System.currentTimeMillis();
            assertThat(deadLetters.replay(brokerRefused)).isTrue();
            assertThat(deadLetters.discard(producerRefused)).isTrue();
            assertThat(deadLetters.replay(brokerRefused)).as("replay is idempotent").isFalse();
            relay.wakeUp();

            // Then the held-back rows flow, each after the row it waited for
            await().atMost(Duration.ofSeconds(30)).until(() -> values(reader).containsAll(List.of("order-a:3",
                    "order-c:2")) && Tables.outboxRows(dataSource) == 0);
            assertThat(deadLetters.count()).isZero();
            // each after the row it waited for: order-a's third after its replayed second, order-c's
            // second only after its first was discarded; every aggregate's rows in their own order
            TopicReader.Seen replayed = smallReader.seen().stream().filter(r -> r.key().equals("order-a"))
                    .findFirst().orElseThrow();
            assertThat(replayed.value()).hasSize(5_000);
            TopicReader.Seen third = seen(reader, "order-a:3");
            assertThat(third.timestamp()).isGreaterThanOrEqualTo(replayed.timestamp())
                    .isGreaterThanOrEqualTo(releasedAt);
            assertThat(seen(reader, "order-c:2").timestamp()).isGreaterThanOrEqualTo(releasedAt);
            assertThat(keyed(reader, "order-a")).containsExactly("order-a:1", "order-a:3");
            assertThat(keyed(reader, "order-b")).containsExactly("order-b:1", "order-b:2", "order-b:3", "order-b:4",
                    "order-b:5", "order-b:6");
            assertThat(keyed(reader, "order-c")).containsExactly("order-c:2");
            await().atMost(Duration.ofSeconds(10)).until(() -> gauge(registry, "outbox.blocked.aggregates") == 0
                    && gauge(registry, "outbox.dead.letters") == 0);
            assertThat(registry.get("outbox.dead.lettered").counter().count()).isEqualTo(2);
            assertThat(registry.get("outbox.publish.latency").timer().count()).isEqualTo(10);
        }
    }

    private static TopicReader.Seen seen(TopicReader reader, String value) {
        return reader.seen().stream().filter(r -> r.value().equals(value)).findFirst().orElseThrow();
    }

    /** The values published under {@code key}, in the order they were read (one partition: offset order). */
    private static List<String> keyed(TopicReader reader, String key) {
        return reader.seen().stream().filter(r -> r.key().equals(key)).map(TopicReader.Seen::value).toList();
    }

    private static List<String> values(TopicReader reader) {
        return reader.seen().stream().map(TopicReader.Seen::value).toList();
    }

    private static double gauge(MeterRegistry registry, String name) {
        return registry.get(name).tag("relay", "poison").gauge().value();
    }

    private static long insert(DataSource dataSource, String aggregate, String topic, String payload) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, correlation_id, payload)"
                        + " VALUES (?, ?, ?, 'TestEvent', ?, ?) RETURNING id")) {
            s.setString(1, aggregate);
            s.setString(2, topic);
            s.setObject(3, UUID.randomUUID());
            s.setString(4, aggregate);
            s.setString(5, payload);
            var rs = s.executeQuery();
            rs.next();
            return rs.getLong(1);
        }
    }
}
