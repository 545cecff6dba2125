package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class RoleTest {

    @Test
    void shouldReadRolesAsTheCommandLineSpellsThemInStartOrder() {
        // Given roles named in any order
        Set<Role> roles = Role.parse(List.of("api", "relay", "saga-worker")).orElseThrow();
        // Then they start dependencies first: the relay before the saga worker, the API last
        assertThat(Role.labels(roles)).containsExactly("relay", "saga-worker", "api");
    }

    @Test
    void shouldRefuseAnythingThatIsNotARole() {
        assertThat(Role.parse(List.of("api", "admin"))).isEmpty();
        assertThat(Role.parse(List.of(""))).isEmpty();
        assertThat(Role.parse(List.of())).isEmpty();
    }

    @Test
    void shouldRunSagasOnlyWhereAnEngineRuns() {
        assertThat(Set.of(Role.values())).filteredOn(Role::runsSagas)
                .containsExactlyInAnyOrder(Role.API, Role.SAGA_WORKER, Role.RECONCILER);
        assertThat(Role.PRODUCT).doesNotContain(Role.SANDBOX).hasSize(Role.values().length - 1);
    }
}
