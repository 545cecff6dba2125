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

/** The tables that grow stay bounded, deleted by age in batches, on a real PostgreSQL. */
@RealInfrastructure
class TableRetentionIT {
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
            deletedInAll += new TableRetention(jdbi, Clock.fixed(now, ZoneOffset.UTC),
                    List.of(TableRetention.inbox(retention))).run();
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

    @Test
    void shouldDeleteEndedSagasWithTheirHistoryAndOldAuditButKeepLiveOnes() {
        // Given an order ended 100 days ago, one ended yesterday, one still waiting since 100 days,
        // each with a history row, and audit rows of 400 days and of today
        java.util.UUID oldEnded = saga("COMPLETED", 100);
        java.util.UUID recentEnded = saga("COMPLETED", 1);
        java.util.UUID oldLive = saga("COMPENSATING", 100);
        jdbi.useHandle(h -> h.execute("INSERT INTO admin_audit (at, actor, role, action, target, outcome) VALUES"
                + " (now() - interval '400 days', 'v', 'viewer', 'retry', 'old', 'FORBIDDEN'),"
                + " (now(), 'v', 'viewer', 'retry', 'new', 'FORBIDDEN')"));

        // When retention runs with 90 days for sagas and 365 for the audit
        int deleted = new TableRetention(jdbi, Clock.systemUTC(), java.util.stream.Stream.concat(
                TableRetention.endedSagas(Duration.ofDays(90)).stream(),
                java.util.stream.Stream.of(TableRetention.audit(Duration.ofDays(365)))).toList()).run();

        // Then only the old ended saga, its history and the old audit row are gone
        assertThat(deleted).isEqualTo(3);
        assertThat(exists(oldEnded)).isFalse();
        assertThat(exists(recentEnded)).isTrue();
        assertThat(exists(oldLive)).isTrue();
        List<String> audit = jdbi.withHandle(h -> h.createQuery("SELECT target FROM admin_audit WHERE actor = 'v'")
                .mapTo(String.class).list());
        assertThat(audit).containsExactly("new");
    }

    private static java.util.UUID saga(String status, int daysAgo) {
        java.util.UUID id = java.util.UUID.randomUUID();
        jdbi.useHandle(h -> {
            h.createUpdate("INSERT INTO saga_instance (saga_id, saga_type, status, step, label, data, updated_at)"
                    + " VALUES (:id, 'retention', :status, 'DONE', 'DONE', '{}', now() - make_interval(days => :days))")
                    .bind("id", id).bind("status", status).bind("days", daysAgo).execute();
            h.createUpdate("INSERT INTO saga_history (saga_id, status, step, label) VALUES (:id, :status, 'DONE', 'DONE')")
                    .bind("id", id).bind("status", status).execute();
        });
        return id;
    }

    private static boolean exists(java.util.UUID id) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM saga_instance WHERE saga_id = :id")
                .bind("id", id).mapTo(Long.class).one()) > 0;
    }

    private static long count() {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM inbox WHERE consumer = 'soak'")
                .mapTo(Long.class).one());
    }
}
