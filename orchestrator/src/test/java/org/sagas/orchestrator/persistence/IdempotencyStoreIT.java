package org.sagas.orchestrator.persistence;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

@RealInfrastructure
class IdempotencyStoreIT {

    @Test
    void shouldKeepAKeyForItsRetentionAndDeleteItAfter(TestInfra infra) {
        // Given a key claimed 25 hours ago, and one claimed now
        Migrations.apply(infra.dataSource());
        Jdbi jdbi = Jdbi.create(infra.dataSource());
        IdempotencyStore store = new IdempotencyStore(jdbi, Duration.ofHours(24));
        Instant now = Instant.now();
        String old = "old-" + UUID.randomUUID();
        String fresh = "fresh-" + UUID.randomUUID();
        jdbi.useTransaction(h -> store.claim(h, old, "hash", UUID.randomUUID(), now.minus(Duration.ofHours(25))));
        jdbi.useTransaction(h -> store.claim(h, fresh, "hash", UUID.randomUUID(), now));

        // When the clean-up job runs
        int deleted = store.deleteExpired(now);

        // Then only the expired key is gone
        assertThat(deleted).isEqualTo(1);
        assertThat(store.find(old)).isEmpty();
        assertThat(store.find(fresh)).hasValueSatisfying(e -> assertThat(e.completed()).isFalse());
    }

    @Test
    void shouldRefuseASecondClaimOfTheSameKey(TestInfra infra) {
        Migrations.apply(infra.dataSource());
        Jdbi jdbi = Jdbi.create(infra.dataSource());
        IdempotencyStore store = new IdempotencyStore(jdbi, Duration.ofHours(24));
        String key = "k-" + UUID.randomUUID();

        boolean first = jdbi.inTransaction(h -> store.claim(h, key, "a", UUID.randomUUID(), Instant.now()));
        boolean second = jdbi.inTransaction(h -> store.claim(h, key, "b", UUID.randomUUID(), Instant.now()));

        assertThat(first).isTrue();
        assertThat(second).isFalse();
        assertThat(store.find(key)).hasValueSatisfying(e -> assertThat(e.requestHash()).isEqualTo("a"));
    }
}
