package org.sagas.reconciler;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.MessageContracts;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.reconciler.internal.JsonSerde;

/** The reconciler's own messages, as its code writes them, keep their schemas (docs/events.md). */
class ReconcilerContractsTest {
    private final MessageContracts contracts = MessageContracts.standard();

    @Test
    void shouldWriteFindingsTheirSchemaAcceptsOpenAndResolved() {
        String order = UUID.randomUUID().toString();
        Instant now = Instant.now();
        Finding open = new Finding(Finding.idOf(FindingKind.CHARGED_NOT_CONFIRMED, order, order + ":charge"),
                FindingKind.CHARGED_NOT_CONFIRMED, FindingState.OPEN, order, order + ":charge", "captured, order cancelled",
                now.minusSeconds(30), now, null, RepairAction.REFUND, order + ":charge:refund");
        Finding resolved = new Finding(open.findingId(), open.kind(), FindingState.RESOLVED, order, open.subject(),
                "refunded", null, null, now, RepairAction.NONE, null);

        for (Finding f : List.of(open, resolved)) {
            byte[] body = new JsonSerde<>(Finding.class).serializer().serialize(Topics.RECONCILIATION_FINDINGS, f);
            assertThat(contracts.check(Topics.RECONCILIATION_FINDINGS, "ReconciliationFinding", body))
                    .as(new String(body, java.nio.charset.StandardCharsets.UTF_8))
                    .isInstanceOf(MessageContracts.Valid.class);
        }
    }

    @Test
    void shouldWriteRepairsTheirSchemaAccepts() {
        String order = UUID.randomUUID().toString();
        RepairCommand repair = new RepairCommand(UUID.randomUUID(), order, order + ":charge", order + ":charge:refund");
        for (String type : List.of(RepairCommand.REFUND_CHARGE, RepairCommand.RELEASE_RESERVATION)) {
            assertThat(contracts.check(Topics.RECONCILIATION_REPAIRS, type, Json.write(repair).getBytes(
                    java.nio.charset.StandardCharsets.UTF_8))).isInstanceOf(MessageContracts.Valid.class);
        }
    }

    @Test
    void shouldListEveryKindStateAndActionTheCodeHasInTheFindingsSchema() {
        JsonNode schema = contracts.resolved(contracts.latest(Topics.RECONCILIATION_FINDINGS, "ReconciliationFinding")
                .orElseThrow());
        assertThat(values(schema, "kind")).containsExactly(names(FindingKind.values()));
        assertThat(values(schema, "state")).containsExactly(names(FindingState.values()));
        assertThat(values(schema, "action")).containsExactly(names(RepairAction.values()));
    }

    private static List<String> values(JsonNode schema, String field) {
        List<String> values = new ArrayList<>();
        schema.path("properties").path(field).path("enum").forEach(v -> values.add(v.asText()));
        return values;
    }

    private static String[] names(Enum<?>[] values) {
        return Arrays.stream(values).map(Enum::name).toArray(String[]::new);
    }
}
