package org.sagas.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.relay.support.Tables;
import org.sagas.relay.support.TopicReader;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** A row with further messages (column {@code more}, V11): one transaction's messages for one aggregate. */
@RealInfrastructure
class MultiMessageRowIT {

    @Test
    void shouldPublishEveryMessageOfARowInItsOrderBeforeTheAggregatesNextRowAndDeleteTheRowOnce(TestInfra infra)
            throws Exception {
        // Given a row carrying three messages on two topics, then a one-message row of the same order
        DataSource dataSource = infra.dataSource(4);
        Migrations.apply(dataSource);
        String events = infra.createTopic(infra.topic("orders.events"), 1);
        String commands = infra.createTopic(infra.topic("payments.commands"), 1);
        UUID second = UUID.randomUUID();
        UUID third = UUID.randomUUID();
        insert(dataSource, "order-m", events, "m:1", new String[] {commands, second.toString(), "Second", "m:2",
            events, third.toString(), "Third", "m:3"});
        insert(dataSource, "order-m", events, "m:4", null);
        try (TopicReader eventReader = new TopicReader(infra.bootstrapServers(), events);
                TopicReader commandReader = new TopicReader(infra.bootstrapServers(), commands);
                OutboxRelay relay = OutboxRelay.builder().dataSource(dataSource)
                        .bootstrapServers(infra.bootstrapServers()).meterRegistry(new SimpleMeterRegistry())
                        .instanceId("multi").build()) {
            // When the relay runs
            relay.start();

            // Then every message went out with its own id and type, the row's key and correlation id
            await().atMost(Duration.ofSeconds(30)).until(() -> eventReader.count() == 3 && commandReader.count() == 1
                    && Tables.outboxRows(dataSource) == 0);
            assertThat(eventReader.seen()).extracting(TopicReader.Seen::value).containsExactly("m:1", "m:3", "m:4");
            TopicReader.Seen two = commandReader.seen().get(0);
            assertThat(two.value()).isEqualTo("m:2");
            assertThat(two.messageId()).isEqualTo(second.toString());
            assertThat(two.messageType()).isEqualTo("Second");
            assertThat(two.key()).isEqualTo("order-m");
            assertThat(two.correlationId()).isEqualTo("order-m");
            TopicReader.Seen three = eventReader.seen().get(1);
            assertThat(three.messageId()).isEqualTo(third.toString());
            // in the row's order, across topics: each sent once the one before it was acknowledged
            assertThat(two.timestamp()).isGreaterThanOrEqualTo(eventReader.seen().get(0).timestamp())
                    .isLessThanOrEqualTo(three.timestamp());
            assertThat(three.timestamp()).isLessThanOrEqualTo(eventReader.seen().get(2).timestamp());
        }
    }

    private static void insert(DataSource dataSource, String aggregate, String topic, String payload, String[] more)
            throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement s = c.prepareStatement(
                "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, correlation_id, payload, more)"
                        + " VALUES (?, ?, ?, 'First', ?, ?, ?)")) {
            s.setString(1, aggregate);
            s.setString(2, topic);
            s.setObject(3, UUID.randomUUID());
            s.setString(4, aggregate);
            s.setString(5, payload);
            s.setArray(6, more == null ? null : c.createArrayOf("text", more));
            s.executeUpdate();
        }
    }
}
