package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
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
    void shouldCountKeysTooShortToBeSafe() {
        assertThat(ApiKeys.parse(List.of("short c-1", ALICE + " c-2")).shortKeys()).isEqualTo(1);
    }
}
