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
    private static final IdempotencyStore.KeyScope ALICE = new IdempotencyStore.KeyScope("key-a11ce000",
            "customer:c-alice");
    private static final IdempotencyStore.KeyScope BOB = new IdempotencyStore.KeyScope("key-b0b00000",
            "customer:c-bob");

    @Test
    void shouldKeepAKeyForItsRetentionAndDeleteItAfter(TestInfra infra) {
        // Given a key claimed 25 hours ago, and one claimed now
        Jdbi jdbi = migrated(infra);
        IdempotencyStore store = new IdempotencyStore(jdbi, Duration.ofHours(24));
        Instant now = Instant.now();
        String old = "old-" + UUID.randomUUID();
        String fresh = "fresh-" + UUID.randomUUID();
        jdbi.useTransaction(h -> store.claim(h, ALICE, old, "hash", UUID.randomUUID(),
                now.minus(Duration.ofHours(25))));
        jdbi.useTransaction(h -> store.claim(h, ALICE, fresh, "hash", UUID.randomUUID(), now));

        // When the clean-up job runs
        int deleted = new TableRetention(jdbi, java.time.Clock.fixed(now, java.time.ZoneOffset.UTC),
                java.util.List.of(TableRetention.idempotencyKeys())).run();

        // Then only the expired key is gone
        assertThat(deleted).isEqualTo(1);
        assertThat(store.find(ALICE, old)).isEmpty();
        assertThat(store.find(ALICE, fresh)).hasValueSatisfying(e -> assertThat(e.completed()).isFalse());
    }

    @Test
    void shouldRefuseASecondClaimOfTheSameKeyByTheSameClient(TestInfra infra) {
        Jdbi jdbi = migrated(infra);
        IdempotencyStore store = new IdempotencyStore(jdbi, Duration.ofHours(24));
        String key = "k-" + UUID.randomUUID();

        boolean first = jdbi.inTransaction(h -> store.claim(h, ALICE, key, "a", UUID.randomUUID(), Instant.now()));
        boolean second = jdbi.inTransaction(h -> store.claim(h, ALICE, key, "b", UUID.randomUUID(), Instant.now()));

        assertThat(first).isTrue();
        assertThat(second).isFalse();
        assertThat(store.find(ALICE, key)).hasValueSatisfying(e -> assertThat(e.requestHash()).isEqualTo("a"));
    }

    @Test
    void shouldKeepEachClientsUseOfOneKeyApart(TestInfra infra) {
        // Given Alice's claim of a key
        Jdbi jdbi = migrated(infra);
        IdempotencyStore store = new IdempotencyStore(jdbi, Duration.ofHours(24));
        String key = "order-" + UUID.randomUUID();
        UUID alices = UUID.randomUUID();
        UUID bobs = UUID.randomUUID();
        jdbi.useTransaction(h -> store.claim(h, ALICE, key, "a", alices, Instant.now()));

        // When Bob claims the same key
        boolean bobClaimed = jdbi.inTransaction(h -> store.claim(h, BOB, key, "b", bobs, Instant.now()));

        // Then he has it, and each sees only his own
        assertThat(bobClaimed).isTrue();
        assertThat(store.find(ALICE, key)).hasValueSatisfying(e -> assertThat(e.orderId()).isEqualTo(alices));
        assertThat(store.find(BOB, key)).hasValueSatisfying(e -> assertThat(e.orderId()).isEqualTo(bobs));
    }

    @Test
    void shouldHonourAKeyInTheInheritedScopeAndNoOtherCustomersOne(TestInfra infra) {
        // Given a key stored for Alice's customer, as the scoping migration keeps a key from before it
        Jdbi jdbi = migrated(infra);
        IdempotencyStore store = new IdempotencyStore(jdbi, Duration.ofHours(24));
        String key = "order-" + UUID.randomUUID();
        UUID before = UUID.randomUUID();
        IdempotencyStore.KeyScope customer = new IdempotencyStore.KeyScope(ALICE.inherited(), ALICE.inherited());
        jdbi.useTransaction(h -> store.claim(h, customer, key, "a", before, Instant.now()));

        // When Alice's key and Bob's each claim it
        boolean aliceClaimed = jdbi.inTransaction(h -> store.claim(h, ALICE, key, "a", UUID.randomUUID(),
                Instant.now()));
        boolean bobClaimed = jdbi.inTransaction(h -> store.claim(h, BOB, key, "a", UUID.randomUUID(), Instant.now()));

        // Then Alice's key finds the order from before; Bob's customer never had the key
        assertThat(aliceClaimed).isFalse();
        assertThat(store.find(ALICE, key)).hasValueSatisfying(e -> assertThat(e.orderId()).isEqualTo(before));
        assertThat(bobClaimed).isTrue();
        assertThat(store.find(BOB, key)).hasValueSatisfying(e -> assertThat(e.orderId()).isNotEqualTo(before));
    }

    private static Jdbi migrated(TestInfra infra) {
        Migrations.apply(infra.dataSource());
        return Jdbi.create(infra.dataSource());
    }
}
