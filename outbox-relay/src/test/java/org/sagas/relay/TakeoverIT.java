package org.sagas.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.relay.support.Delivery;
import org.sagas.relay.support.Leases;
import org.sagas.relay.support.RelayProcess;
import org.sagas.relay.support.SagaLikeWriter;
import org.sagas.relay.support.Tables;
import org.sagas.relay.support.TopicReader;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

@RealInfrastructure
class TakeoverIT {
    private static final Logger log = LoggerFactory.getLogger(TakeoverIT.class);

    @Test
    void shouldTakeOverTheShardsOfARelayProcessThatDiesWithinTenSeconds(TestInfra infra) throws Exception {
        // Given a relay in this JVM and one in another process sharing the shards, and a steady writer
        DataSource dataSource = infra.dataSource(8);
        Migrations.apply(dataSource);
        String topic = infra.createTopic(infra.topic("orders.events"), 4);
        List<String> aggregates = SagaLikeWriter.createAggregates(dataSource, "order", 500);
        try (TopicReader reader = new TopicReader(infra.bootstrapServers(), topic);
                OutboxRelay survivor = OrderingIT.relay(dataSource, infra, "takeover-survivor");
                RelayProcess victim = RelayProcess.start(infra, "takeover-victim")) {
            survivor.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> Leases.byRelay(dataSource).values().stream().sorted()
                    .toList().equals(List.of(32, 32)));
            try (SagaLikeWriter writer = SagaLikeWriter.start(dataSource, topic, aggregates, 2, 2, Long.MAX_VALUE, 400,
                    survivor::wakeUp)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> reader.count() > 1000);

                // When the other relay's process is killed
                victim.kill();
                long killed = System.nanoTime();

                // Then within 10 s this relay leases all 64 shards and nothing waits in the outbox
                await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(100)).until(() ->
                        survivor.leasedShards().size() == 64 && Tables.oldestAgeSeconds(dataSource) < 1.0);
                log.info("shards taken over and outbox drained {} ms after the kill",
                        (System.nanoTime() - killed) / 1_000_000);
                long countAtTakeover = reader.count();
                await().atMost(Duration.ofSeconds(10)).until(() -> reader.count() > countAtTakeover + 500);
                assertThat(writer.failures()).isZero();
            }
            Map<String, Integer> committed = SagaLikeWriter.committedVersions(dataSource, "order");
            long total = Delivery.total(committed);
            await().atMost(Duration.ofSeconds(30)).until(() -> Tables.outboxRows(dataSource) == 0
                    && reader.count() - Delivery.duplicates(reader.seen()) >= total);
            // and every event arrived in order; rows the killed relay had sent but not yet deleted
            // may arrive twice (at least once after a crash), with the same message id
            Delivery.assertInOrderWithoutLoss(reader.seen(), committed);
            log.info("{} events, {} delivered twice after the crash", total, Delivery.duplicates(reader.seen()));
        }
    }
}
