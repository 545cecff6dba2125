package org.sagas.orchestrator.messaging;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** docs/events.md is what the message contracts generate (docs/decisions/0026). */
class EventsDocumentTest {
    @Test
    void shouldKeepDocsEventsInStepWithTheSchemas() throws Exception {
        // Given the document the schemas, their examples and the prose beside them generate
        String generated = EventsDocument.generate(MessageContracts.standard());

        // Then docs/events.md is exactly that
        assertThat(Files.readString(Path.of("..", "docs", "events.md")))
                .as("docs/events.md is out of date: run ./sagas events docs > docs/events.md")
                .isEqualTo(generated);
    }

    @Test
    void shouldShowEveryMessageTypeWithItsExample() {
        String generated = EventsDocument.generate(MessageContracts.standard());
        for (MessageContracts.Contract c : MessageContracts.standard().all()) {
            assertThat(generated).as(c.name()).contains("(v" + c.version() + ")").contains(c.path());
        }
        assertThat(generated).contains("\"unitPriceCents\" : 1250").contains("Following an order from Kafka alone");
    }
}
