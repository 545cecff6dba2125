package org.sagas.orchestrator.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class AdminTokensTest {

    @Test
    void shouldKnowEachTokenOfTheFileAndTheEnvironmentByItsNameAndRole() {
        AdminTokens tokens = AdminTokens.parse(List.of("# operators", "", "olga operator t-olga",
                "  victor   viewer   t-victor  "), "tokens.txt", "t-env");

        assertThat(tokens.authenticate("t-olga")).contains(new Operator("olga", Role.OPERATOR));
        assertThat(tokens.authenticate("t-victor")).contains(new Operator("victor", Role.VIEWER));
        assertThat(tokens.authenticate("t-env")).contains(new Operator("admin", Role.OPERATOR));
        assertThat(tokens.size()).isEqualTo(3);
    }

    @Test
    void shouldAcceptNoOtherTokenNotEvenAPrefixOrAnExtension() {
        AdminTokens tokens = AdminTokens.operator("secret-token");

        assertThat(tokens.authenticate("secret-toke")).isEmpty();
        assertThat(tokens.authenticate("secret-token2")).isEmpty();
        assertThat(tokens.authenticate("SECRET-TOKEN")).isEmpty();
        assertThat(tokens.authenticate("")).isEmpty();
        assertThat(tokens.authenticate(null)).isEmpty();
        assertThat(AdminTokens.parse(List.of(), "none", null).authenticate("secret-token")).isEmpty();
    }

    @Test
    void shouldNameTheLineThatIsWrong() {
        assertThatThrownBy(() -> AdminTokens.parse(List.of("olga operator"), "f", null))
                .hasMessage("f line 1: expected 'name role token', got 2 fields");
        assertThatThrownBy(() -> AdminTokens.parse(List.of("# c", "olga admin t"), "f", null))
                .hasMessage("f line 2: role must be viewer or operator (got 'admin')");
        assertThatThrownBy(() -> AdminTokens.parse(List.of("olga operator t", "olga viewer u"), "f", null))
                .hasMessageContaining("line 2: the name olga is taken");
        assertThatThrownBy(() -> AdminTokens.parse(List.of("olga operator t", "ivan viewer t"), "f", null))
                .hasMessageContaining("line 2: this token is already given");
        assertThatThrownBy(() -> AdminTokens.parse(List.of("admin viewer t"), "f", "u"))
                .hasMessageContaining("SAGA_ADMIN_TOKEN");
    }
}
