package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ApiKeysTest {
    private static final String ALICE = "alice-0123456789abcdef";

    @Test
    void shouldBindEachKeyToItsCustomersAndItsPriorityMark() {
        ApiKeys keys = ApiKeys.parse(List.of("# comment", "", ALICE + " c-1,c-2", "bob-0123456789abcdef  c-3  priority"));

        ApiKeys.Client alice = keys.authenticate(ALICE).orElseThrow();
        ApiKeys.Client bob = keys.authenticate("bob-0123456789abcdef").orElseThrow();

        assertThat(alice.customers()).isEqualTo(Set.of("c-1", "c-2"));
        assertThat(alice.priority()).isFalse();
        assertThat(bob.customers()).isEqualTo(Set.of("c-3"));
        assertThat(bob.priority()).isTrue();
        assertThat(keys.size()).isEqualTo(2);
    }

    @Test
    void shouldNameClientsByADigestNeverByTheKey() {
        ApiKeys.Client alice = ApiKeys.parse(List.of(ALICE + " c-1")).authenticate(ALICE).orElseThrow();

        assertThat(alice.name()).startsWith("key-").doesNotContain("alice");
    }

    @Test
    void shouldNotAuthenticateAnUnknownKeyOrAPrefixOfAKnownOne() {
        ApiKeys keys = ApiKeys.parse(List.of(ALICE + " c-1"));

        assertThat(keys.authenticate("alice")).isEmpty();
        assertThat(keys.authenticate(ALICE + "x")).isEmpty();
        assertThat(keys.authenticate("")).isEmpty();
    }

    @Test
    void shouldRejectAWrongLineNamingItsNumberButNotItsKey() {
        assertThatThrownBy(() -> ApiKeys.parse(List.of(ALICE + " c-1", "secret-key-42")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 2")
                .hasMessageNotContaining("secret-key-42");
        assertThatThrownBy(() -> ApiKeys.parse(List.of(ALICE + " c-1 admin")))
                .hasMessageContaining("priority");
        assertThatThrownBy(() -> ApiKeys.parse(List.of(ALICE + " c-1", ALICE + " c-2")))
                .hasMessageContaining("line 2").hasMessageContaining("same key");
        assertThatThrownBy(() -> ApiKeys.parse(List.of("# nothing"))).hasMessageContaining("no key");
    }

    @Test
    void shouldReadAKeysOwnLimitsInAnyOrderWithPriority() {
        ApiKeys keys = ApiKeys.parse(List.of(ALICE + " c-1 rate=500 priority burst=1000 pending=20000",
                "bob-0123456789abcdef c-2 pending=7", "carol-0123456789abcdef c-3"));

        ApiKeys.Client alice = keys.authenticate(ALICE).orElseThrow();
        ApiKeys.Client bob = keys.authenticate("bob-0123456789abcdef").orElseThrow();
        ApiKeys.Client carol = keys.authenticate("carol-0123456789abcdef").orElseThrow();

        assertThat(alice.priority()).isTrue();
        assertThat(alice.limits()).isEqualTo(new ApiKeys.Limits(OptionalInt.of(500), OptionalInt.of(1000),
                OptionalInt.of(20000)));
        assertThat(bob.priority()).isFalse();
        assertThat(bob.limits()).isEqualTo(new ApiKeys.Limits(OptionalInt.empty(), OptionalInt.empty(),
                OptionalInt.of(7)));
        assertThat(carol.limits()).isEqualTo(ApiKeys.Limits.DEFAULTS);
    }

    @Test
    void shouldAcceptARateOfZeroAsNoLimitForThatKey() {
        ApiKeys.Client alice = ApiKeys.parse(List.of(ALICE + " c-1 rate=0")).authenticate(ALICE).orElseThrow();

        assertThat(alice.limits().rate()).hasValue(0);
    }

    @Test
    void shouldRefuseAnUnknownOrMalformedOptionNamingTheLineButNotTheKeyOrTheColumn() {
        List<String> wrong = List.of("rate=", "rate=-1", "rate=+5", "rate=1e3", "rate=1000001", "burst=0",
                "pending=0", "pending=99999999999", "burst=10000001", "speed=5", "rate", "=5", "Rate=5",
                "rate=5 rate=6", "priority priority", "pending=1,2");
        for (String options : wrong) {
            assertThatThrownBy(() -> ApiKeys.parse(List.of("# first", ALICE + " c-1", "secret-key-42 c-2 " + options)))
                    .as(options).isInstanceOf(IllegalArgumentException.class).hasMessageContaining("line 3")
                    .hasMessageNotContaining("secret-key-42");
        }
        assertThatThrownBy(() -> ApiKeys.parse(List.of(ALICE + " c-1 secret-key-42")))
                .hasMessageContaining("unknown option").hasMessageNotContaining("secret-key-42");
        assertThatThrownBy(() -> ApiKeys.parse(List.of(ALICE + " c-1 burst=0")))
                .hasMessageContaining("burst must be a whole number from 1 to 10000000");
        assertThatThrownBy(() -> ApiKeys.parse(List.of(ALICE + " c-1 rate=5 rate=5")))
                .hasMessageContaining("rate is given twice");
    }

    @Test
    void shouldRefuseTwoKeysWhoseDigestNamesAreOne() {
        // Given two keys whose names (quotas' and Idempotency-Keys' scope) coincide, found by trying
        Map<String, String> byName = new HashMap<>();
        String[] pair = null;
        for (int i = 0; pair == null; i++) {
            String key = "colliding-key-" + i;
            String name = ApiKeys.parse(List.of(key + " c-1")).authenticate(key).orElseThrow().name();
            String earlier = byName.putIfAbsent(name, key);
            if (earlier != null) {
                pair = new String[] {earlier, key};
            }
        }
        List<String> lines = List.of(pair[0] + " c-1", pair[1] + " c-2");

        assertThatThrownBy(() -> ApiKeys.parse(lines)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("line 2").hasMessageNotContaining(pair[0]).hasMessageNotContaining(pair[1]);
    }

    @Test
    void shouldCountKeysTooShortToBeSafe() {
        assertThat(ApiKeys.parse(List.of("short c-1", ALICE + " c-2")).shortKeys()).isEqualTo(1);
    }
}
