package org.sagas.orchestrator.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.MessageContracts.Contract;

/**
 * Every version of a message's schema is backward and forward compatible with the one before it
 * (docs/decisions/0026): checked by the rules of {@link SchemaCompatibility}, and by each version's
 * examples, which the other version must accept. A pair of fixture schemas that breaks every rule
 * shows the check can fail.
 */
class SchemaCompatibilityTest {
    private static final MessageContracts FIXTURES = MessageContracts.load(SchemaCompatibilityTest::fixture);

    @Test
    void shouldKeepEveryNewVersionOfTheProductsSchemasCompatibleWithItsPrevious() {
        MessageContracts contracts = MessageContracts.standard();
        List<String> problems = new ArrayList<>();
        for (Contract newer : contracts.all()) {
            contracts.previous(newer).ifPresent(older -> {
                new SchemaCompatibility(contracts).problems(older, newer)
                        .forEach(p -> problems.add(older.name() + " -> " + newer.name() + " " + p));
                problems.addAll(examplesRefused(contracts, older, newer));
                problems.addAll(examplesRefused(contracts, newer, older));
            });
        }
        assertThat(problems).isEmpty();
    }

    @Test
    void shouldAcceptAPairThatOnlyAddsAnOptionalFieldAndChangesWords() {
        // Given Gadget v2: one new optional field, a new description
        Contract v1 = FIXTURES.latest("shop.things", "Gadget").flatMap(FIXTURES::previous).orElseThrow();
        Contract v2 = FIXTURES.latest("shop.things", "Gadget").orElseThrow();

        // Then nothing breaks, either way
        assertThat(new SchemaCompatibility(FIXTURES).problems(v1, v2)).isEmpty();
        assertThat(examplesRefused(FIXTURES, v1, v2)).isEmpty();
        assertThat(examplesRefused(FIXTURES, v2, v1)).isEmpty();
    }

    @Test
    void shouldRefuseAPairThatBreaksEveryRuleNamingEachBreak() {
        // Given Thing v2: a new required field, a dropped requirement, a removed field, a changed type,
        // a narrowed enum and a narrowed range
        Contract v1 = FIXTURES.latest("shop.things", "Thing").flatMap(FIXTURES::previous).orElseThrow();
        Contract v2 = FIXTURES.latest("shop.things", "Thing").orElseThrow();

        // When the pair is checked
        List<String> problems = new SchemaCompatibility(FIXTURES).problems(v1, v2);

        // Then each break is named
        assertThat(problems).anySatisfy(p -> assertThat(p).startsWith("$.owner: newly required"))
                .anySatisfy(p -> assertThat(p).startsWith("$.price: no longer required"))
                .anySatisfy(p -> assertThat(p).startsWith("$.note: no longer declared"))
                .anySatisfy(p -> assertThat(p).startsWith("$.price: type changed"))
                .anySatisfy(p -> assertThat(p).startsWith("$.colour: enum changed"))
                .anySatisfy(p -> assertThat(p).startsWith("$.size: minimum changed"))
                .hasSize(6);
        // and readers on either version refuse the other's messages
        assertThat(examplesRefused(FIXTURES, v1, v2)).isNotEmpty();
        assertThat(examplesRefused(FIXTURES, v2, v1)).isNotEmpty();
    }

    /** The examples of {@code writer}'s schema a reader on {@code reader}'s refuses. */
    private static List<String> examplesRefused(MessageContracts contracts, Contract writer, Contract reader) {
        List<String> refused = new ArrayList<>();
        for (JsonNode example : Json.read(contracts.text(writer), JsonNode.class).path("examples")) {
            if (!(contracts.check(reader, Json.write(example)) instanceof MessageContracts.Valid)) {
                refused.add(reader.name() + " refuses " + writer.name() + "'s example " + example);
            }
        }
        return refused;
    }

    private static String fixture(String path) {
        try (InputStream in = SchemaCompatibilityTest.class.getResourceAsStream("fixtures/" + path)) {
            return in == null ? null : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
