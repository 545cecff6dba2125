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
class OrderingIT {
    private static final Logger log = LoggerFactory.getLogger(OrderingIT.class);
    private static final int EVENTS = 100_000;

    @Test
    void shouldPublishEveryAggregateInCommitOrderOnceWithConcurrentWritersAndSeveralRelays(TestInfra infra)
            throws Exception {
        // Given two relays in this JVM, one in a process of its own, and four concurrent writers
        DataSource dataSource = infra.dataSource(12);
        Migrations.apply(dataSource);
        String topic = infra.createTopic(infra.topic("orders.events"), 8);
        List<String> aggregates = SagaLikeWriter.createAggregates(dataSource, "order", 2000);
        try (TopicReader reader = new TopicReader(infra.bootstrapServers(), topic);
                RelayProcess other = RelayProcess.start(infra, "ordering-process");
                OutboxRelay first = relay(dataSource, infra, "ordering-thread-1");
                OutboxRelay second = relay(dataSource, infra, "ordering-thread-2")) {
            first.start();
            second.start();
            assertThat(other.isAlive()).isTrue();

            // When they write 100 000 events, each transaction bumping five aggregates
            long started = System.nanoTime();
            try (SagaLikeWriter writer = SagaLikeWriter.start(dataSource, topic, aggregates, 4, 5, EVENTS, 0, () -> {
                first.wakeUp();
                second.wakeUp();
            })) {
                await().atMost(Duration.ofSeconds(90)).pollInterval(Duration.ofSeconds(2)).until(() -> {
                    log.info("written {}, consumed {}, in outbox {}", writer.committed(), reader.count(),
                            Tables.outboxRows(dataSource));
                    return writer.done();
                });
            }
            Map<String, Integer> committed = SagaLikeWriter.committedVersions(dataSource, "order");
            long total = Delivery.total(committed);
            await().atMost(Duration.ofSeconds(60)).until(() -> reader.count() >= total
                    && Tables.outboxRows(dataSource) == 0);
            log.info("{} events written and consumed in {} ms; outbox now {} bytes", total,
                    (System.nanoTime() - started) / 1_000_000, Tables.outboxBytes(dataSource));

            // Then each aggregate's events arrived once each, in commit order, keyed by the aggregate
            assertThat(total).isGreaterThanOrEqualTo(EVENTS);
            Delivery.assertExactlyOnceInOrder(reader.seen(), committed);
            // and the outbox stays small (the bound is 50 MB after 1 000 000 events)
            assertThat(Tables.outboxBytes(dataSource)).isLessThan(50L * 1024 * 1024);
            // and the three relays share the 64 shards
            Map<String, Integer> leases = Leases.byRelay(dataSource);
            assertThat(leases).hasSize(3);
            assertThat(leases.values()).allSatisfy(n -> assertThat(n).isBetween(20, 22));
        }
    }

    static OutboxRelay relay(DataSource dataSource, TestInfra infra, String instanceId) {
        return OutboxRelay.builder()
                .dataSource(dataSource)
                .bootstrapServers(infra.bootstrapServers())
                .instanceId(instanceId)
                .build();
    }
}
