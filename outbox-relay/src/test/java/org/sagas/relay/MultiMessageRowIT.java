package org.sagas.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.jdbi.v3.core.Jdbi;
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
    void shouldPublishEveryMessageOfARowInItsOrderPerTopicBeforeTheAggregatesNextRowAndDeleteTheRowOnce(TestInfra infra)
            throws Exception {
        // Given one transaction's three messages for one order on two topics and one for another order,
        // then a second transaction's message for the first order, written by the outbox's writer
        DataSource dataSource = infra.dataSource(4);
        Migrations.apply(dataSource);
        String events = infra.createTopic(infra.topic("orders.events"), 1);
        String commands = infra.createTopic(infra.topic("payments.commands"), 1);
        Jdbi jdbi = Jdbi.create(dataSource);
        jdbi.useTransaction(h -> Outbox.append(h, List.of(message("order-m", events, "First", "m:1"),
                message("order-m", commands, "Second", "m:2"), message("order-m", events, "Third", "m:3"),
                message("order-x", events, "First", "x:1"))));
        jdbi.useTransaction(h -> Outbox.append(h, List.of(message("order-m", events, "First", "m:4"))));
        // Then the first order's messages of one transaction share a row, the other order's has its own
        List<String[]> more = jdbi.withHandle(h -> h.createQuery("SELECT more FROM outbox ORDER BY id")
                .map((rs, ctx) -> rs.getArray(1) == null ? new String[0] : (String[]) rs.getArray(1).getArray())
                .list());
        assertThat(more).extracting(m -> m.length).containsExactly(8, 0, 0);
        UUID second = UUID.fromString(more.get(0)[1]);
        UUID third = UUID.fromString(more.get(0)[5]);
        assertThat(second).isNotEqualTo(third);
        try (TopicReader eventReader = new TopicReader(infra.bootstrapServers(), events);
                TopicReader commandReader = new TopicReader(infra.bootstrapServers(), commands);
                OutboxRelay relay = OutboxRelay.builder().dataSource(dataSource)
                        .bootstrapServers(infra.bootstrapServers()).meterRegistry(new SimpleMeterRegistry())
                        .instanceId("multi").build()) {
            // When the relay runs
            relay.start();

            // Then every message went out with its own id and type, the row's key and correlation id
            await().atMost(Duration.ofSeconds(30)).until(() -> eventReader.count() == 4 && commandReader.count() == 1
                    && Tables.outboxRows(dataSource) == 0);
            List<TopicReader.Seen> orderM = eventReader.seen().stream().filter(r -> r.key().equals("order-m")).toList();
            assertThat(orderM).extracting(TopicReader.Seen::value).containsExactly("m:1", "m:3", "m:4");
            TopicReader.Seen two = commandReader.seen().get(0);
            assertThat(two.value()).isEqualTo("m:2");
            assertThat(two.messageId()).isEqualTo(second.toString());
            assertThat(two.messageType()).isEqualTo("Second");
            assertThat(two.key()).isEqualTo("order-m");
            assertThat(two.correlationId()).isEqualTo("order-m");
            TopicReader.Seen three = orderM.get(1);
            assertThat(three.messageId()).isEqualTo(third.toString());
            // on one topic in the row's order (above); the aggregate's next row once the whole row was
            // acknowledged, whatever its topics
            assertThat(orderM.get(2).timestamp()).isGreaterThanOrEqualTo(three.timestamp())
                    .isGreaterThanOrEqualTo(two.timestamp());
        }
    }

    private static Outbox.Message message(String key, String topic, String type, String payload) {
        return new Outbox.Message(key, topic, type, payload, key, null);
    }
}
