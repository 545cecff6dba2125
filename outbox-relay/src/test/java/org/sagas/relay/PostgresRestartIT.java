package org.sagas.relay;

import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.relay.support.Delivery;
import org.sagas.relay.support.SagaLikeWriter;
import org.sagas.relay.support.Tables;
import org.sagas.relay.support.TopicReader;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@RealInfrastructure
class PostgresRestartIT {
    private static final Logger log = LoggerFactory.getLogger(PostgresRestartIT.class);

    @Test
    void shouldReconnectByItselfAndPublishEverythingOnceWhenPostgresRestarts(TestInfra infra) throws Exception {
        assumeTrue(infra.embedded(), "needs the embedded PostgreSQL to restart");
        // Given a relay publishing a steady stream of events
        DataSource dataSource = infra.dataSource(6);
        Migrations.apply(dataSource);
        String topic = infra.createTopic(infra.topic("orders.events"), 4);
        List<String> aggregates = SagaLikeWriter.createAggregates(dataSource, "order", 300);
        AtomicLong lastAck = new AtomicLong();
        try (TopicReader reader = new TopicReader(infra.bootstrapServers(), topic);
                OutboxRelay relay = OutboxRelay.builder().dataSource(dataSource)
                        .bootstrapServers(infra.bootstrapServers()).instanceId("pg-restart")
                        .publishListener((id, aggregate, at) -> lastAck.set(at)).build()) {
            relay.start();
            try (SagaLikeWriter writer = SagaLikeWriter.start(dataSource, topic, aggregates, 2, 2, Long.MAX_VALUE, 300,
                    relay::wakeUp)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> reader.count() > 500);

                // When PostgreSQL restarts under it
                infra.restartPostgres();
                long restartedAt = System.nanoTime();

                // Then the relay reconnects by itself and publishes what is written after the restart
                long writtenAtRestart = writer.committed();
                await().atMost(Duration.ofSeconds(20)).until(() -> writer.committed() > writtenAtRestart + 300
                        && lastAck.get() > restartedAt);
                log.info("first acknowledgement {} ms after PostgreSQL was back",
                        (lastAck.get() - restartedAt) / 1_000_000);
                long countAfter = reader.count();
                await().atMost(Duration.ofSeconds(20)).until(() -> reader.count() > countAfter + 300);
            }
            Map<String, Integer> committed = SagaLikeWriter.committedVersions(dataSource, "order");
            long total = Delivery.total(committed);
            await().atMost(Duration.ofSeconds(30)).until(() -> Tables.outboxRows(dataSource) == 0
                    && reader.count() >= total);
            // and every event arrived once, each aggregate's in commit order
            Delivery.assertExactlyOnceInOrder(reader.seen(), committed);
        }
    }
}
