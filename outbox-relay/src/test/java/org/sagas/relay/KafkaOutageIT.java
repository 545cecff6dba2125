package org.sagas.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.sagas.embedded.KafkaBroker;
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
class KafkaOutageIT {
    private static final Logger log = LoggerFactory.getLogger(KafkaOutageIT.class);
    // The outage lasts 30 s; 10 s here keeps the module's tests within their time budget.
    // The relay behaves the same for any outage shorter than the producer's delivery timeout
    // (120 s): the sends wait and complete in order; past it they fail, the rows stay, and the
    // next round re-sends them from the first unacknowledged one.
    private static final Duration OUTAGE = Duration.ofSeconds(10);

    @Test
    void shouldLoseNothingReorderNothingAndResumeWithinFiveSecondsAfterTheBrokerWasDown(TestInfra infra)
            throws Exception {
        assumeTrue(infra.embedded(), "needs the embedded broker to kill and restart");
        KafkaBroker broker = infra.broker();
        // Given a relay publishing a steady stream of events
        DataSource dataSource = infra.dataSource(6);
        Migrations.apply(dataSource);
        String topic = infra.createTopic(infra.topic("orders.events"), 4);
        List<String> aggregates = SagaLikeWriter.createAggregates(dataSource, "order", 300);
        AtomicLong lastAck = new AtomicLong();
        try (TopicReader reader = new TopicReader(infra.bootstrapServers(), topic);
                OutboxRelay relay = OutboxRelay.builder().dataSource(dataSource)
                        .bootstrapServers(infra.bootstrapServers()).instanceId("outage")
                        .publishListener((id, aggregate, at) -> lastAck.set(at)).build()) {
            relay.start();
            try (SagaLikeWriter writer = SagaLikeWriter.start(dataSource, topic, aggregates, 2, 2, Long.MAX_VALUE, 300,
                    relay::wakeUp)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> reader.count() > 500);

                // When the broker is killed and stays down while writers go on
                long backAt;
                try {
                    broker.kill();
                    long downAt = System.nanoTime();
                    await().during(OUTAGE).atMost(OUTAGE.plusSeconds(5))
                            .until(() -> lastAck.get() < downAt && writer.failures() == 0);
                    assertThat(Tables.outboxRows(dataSource)).as("rows waiting for the broker").isGreaterThan(1000);
                } finally {
                    broker.start();
                    backAt = System.nanoTime();
                }

                // Then publishing resumes within 5 s of the broker being back
                await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(50))
                        .until(() -> lastAck.get() > backAt);
                log.info("publishing resumed {} ms after the broker was back", (lastAck.get() - backAt) / 1_000_000);
                long countAtResume = reader.count();
                await().atMost(Duration.ofSeconds(30)).until(() -> reader.count() > countAtResume + 500);
            }
            Map<String, Integer> committed = SagaLikeWriter.committedVersions(dataSource, "order");
            long total = Delivery.total(committed);
            await().atMost(Duration.ofSeconds(30)).until(() -> Tables.outboxRows(dataSource) == 0
                    && reader.count() - Delivery.duplicates(reader.seen()) >= total);
            // and every event arrived, each aggregate's in commit order
            Delivery.assertInOrderWithoutLoss(reader.seen(), committed);
            log.info("{} events, {} delivered twice", total, Delivery.duplicates(reader.seen()));
        } finally {
            if (!broker.isRunning()) {
                broker.start();
            }
        }
    }
}
