package org.sagas.orchestrator.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.sql.Timestamp;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** The inbox stays bounded (issue 11, item 9), on a real PostgreSQL. */
@RealInfrastructure
class InboxRetentionIT {
    private static Jdbi jdbi;

    @BeforeAll
    static void schema(TestInfra infra) {
        Migrations.apply(infra.dataSource());
        jdbi = Jdbi.create(infra.dataSource(4));
    }

    @Test
    void shouldKeepTheInboxBoundedThroughAMillionMessages() {
        // Given a million messages consumed over ten simulated days, 100 000 a day, and a
        // retention of three days, the job running once a day
        Instant start = Instant.parse("2026-01-01T00:00:00Z");
        Duration retention = Duration.ofDays(3);
        List<Long> rowsAfterEachDay = new ArrayList<>();
        int deletedInAll = 0;
        for (int day = 0; day < 10; day++) {
            Instant now = start.plus(Duration.ofDays(day));
            jdbi.useHandle(h -> h.createUpdate("INSERT INTO inbox (consumer, message_id, received_at)"
                            + " SELECT 'soak', gen_random_uuid(), CAST(:at AS timestamptz) - (1 + i % 1000) * interval '1 second'"
                            + " FROM generate_series(1, 100000) AS i")
                    .bind("at", Timestamp.from(now)).execute());
            // When the retention job runs that day
            deletedInAll += new InboxRetention(jdbi, retention, Clock.fixed(now, ZoneOffset.UTC)).run();
            rowsAfterEachDay.add(count());
        }

        // Then the table never holds more than the retention's worth, and only young rows remain
        assertThat(rowsAfterEachDay).allSatisfy(rows -> assertThat(rows).isLessThanOrEqualTo(300_000L));
        assertThat(rowsAfterEachDay.get(9)).isEqualTo(300_000L);
        assertThat(deletedInAll).isEqualTo(700_000);
        long tooOld = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM inbox WHERE received_at < :cutoff")
                .bind("cutoff", Timestamp.from(start.plus(Duration.ofDays(9)).minus(retention))).mapTo(Long.class)
                .one());
        assertThat(tooOld).isZero();
    }

    private static long count() {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM inbox WHERE consumer = 'soak'")
                .mapTo(Long.class).one());
    }
}
