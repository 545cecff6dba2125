package org.sagas.relay;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.relay.support.Tables;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A backlog that arrives after the statistics were taken of a (nearly) empty outbox: the planner
 * believes the table holds about one row, whatever its size. The relay's reads and deletes must
 * not depend on that belief (before, the first rounds of a 200 000-row drain each took
 * ~8 s to read 2 000 rows).
 */
@RealInfrastructure
class StaleStatisticsDrainIT {
    private static final Logger log = LoggerFactory.getLogger(StaleStatisticsDrainIT.class);
    private static final int BACKLOG = 200_000;
    private static final int CHUNK = 20_000;
    private static final int TRICKLE = 30;

    @Test
    void shouldDrainABacklogWrittenAfterTheStatisticsWithoutASlowRound(TestInfra infra) throws Exception {
        // Given statistics that show an empty outbox of many pages: what a VACUUM of a drained queue
        // table leaves behind when busy sessions keep it from truncating the empty pages
        DataSource dataSource = infra.dataSource(6);
        Migrations.apply(dataSource);
        String topic = infra.createTopic(infra.topic("stale.stats"), 4);
        // Autovacuum would analyze the backlog within a minute; the point is that minute.
        Tables.execute(dataSource, "ALTER TABLE outbox SET (autovacuum_enabled = off)");
        insert(dataSource, topic, CHUNK, CHUNK);
        Tables.execute(dataSource, "DELETE FROM outbox");
        ConcurrentLinkedQueue<Long> acks = new ConcurrentLinkedQueue<>();
        try (Connection reader = dataSource.getConnection(); Statement lock = reader.createStatement();
                OutboxRelay relay = OutboxRelay.builder().dataSource(dataSource)
                        .bootstrapServers(infra.bootstrapServers()).instanceId("stale-stats")
                        .publishListener((id, aggregate, at) -> acks.add(at)).build()) {
            // A reader's lock keeps VACUUM from truncating (it gives up after 5 s), as the relay's
            // and the writers' statements do on a busy outbox.
            reader.setAutoCommit(false);
            lock.execute("LOCK TABLE outbox IN ACCESS SHARE MODE");
            Tables.execute(dataSource, "VACUUM outbox");
            assertThat(Tables.queryLong(dataSource, "SELECT reltuples::bigint FROM pg_class WHERE relname = 'outbox'"))
                    .isZero();
            assertThat(Tables.queryLong(dataSource, "SELECT relpages FROM pg_class WHERE relname = 'outbox'"))
                    .isGreaterThan(100);
            // and a relay that has run a few dozen small rounds on them (its statements' plans cached)
            relay.start();
            for (int i = 0; i < TRICKLE; i++) {
                insert(dataSource, topic, 1, 1);
                relay.wakeUp();
                int expected = i + 1;
                await().atMost(Duration.ofSeconds(30)).until(() -> acks.size() >= expected);
            }
            reader.commit();

            // When a backlog is committed at once (a writer's batch, the end of a broker outage)
            // with no ANALYZE, and the relay drains it
            acks.clear();
            long start = System.nanoTime();
            insert(dataSource, topic, BACKLOG, BACKLOG);
            long written = System.nanoTime();
            relay.wakeUp();
            log.info("backlog of {} rows written in {} ms; pg_class says {} rows over {} pages", BACKLOG,
                    (written - start) / 1_000_000,
                    Tables.queryLong(dataSource, "SELECT reltuples::bigint FROM pg_class WHERE relname = 'outbox'"),
                    Tables.queryLong(dataSource, "SELECT relpages FROM pg_class WHERE relname = 'outbox'"));
            await().atMost(Duration.ofMinutes(8)).pollInterval(Duration.ofMillis(200))
                    .until(() -> acks.size() >= BACKLOG);
            double seconds = (System.nanoTime() - written) / 1e9;
            long longestGapMillis = longestGapMillis(acks.stream().mapToLong(Long::longValue).sorted().toArray());
            log.info("drained {} rows in {} s ({} events/s); longest pause between acknowledgements {} ms"
                    + " (load average {})", BACKLOG, String.format("%.2f", seconds), Math.round(BACKLOG / seconds),
                    longestGapMillis, java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                            .getSystemLoadAverage());

            // Then no round waited seconds for its read: a round of 2 000 rows takes milliseconds
            assertThat(longestGapMillis).as("longest pause between two acknowledgements, ms").isLessThan(2_000);
        }
    }

    /** Inserts {@code rows} rows, {@code perTransaction} in each transaction. */
    private static void insert(DataSource dataSource, String topic, int rows, int perTransaction) throws Exception {
        try (Connection c = dataSource.getConnection(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, payload)"
                        + " SELECT 'stale-' || (g % 50000), ?, gen_random_uuid(), 'StaleEvent', repeat('x', 200)"
                        + " FROM generate_series(1, ?) g")) {
            for (int done = 0; done < rows; done += perTransaction) {
                insert.setString(1, topic);
                insert.setInt(2, Math.min(perTransaction, rows - done));
                insert.executeUpdate();
            }
        }
    }

    private static long longestGapMillis(long[] sortedAckNanos) {
        long longest = 0;
        for (int i = 1; i < sortedAckNanos.length; i++) {
            longest = Math.max(longest, sortedAckNanos[i] - sortedAckNanos[i - 1]);
        }
        return TimeUnit.NANOSECONDS.toMillis(longest);
    }
}
