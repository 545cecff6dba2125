package org.sagas.reconciler;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.orchestrator.Json;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** The admin API's view of the findings: filters, order, JSON shape, and errors that name the parameter. */
@RealInfrastructure
class FindingsReaderIT {
    private static Jdbi jdbi;
    private static FindingsReader reader;

    @BeforeAll
    static void fill(TestInfra infra) {
        var ds = infra.dataSource(2);
        Migrations.apply(ds);
        jdbi = Jdbi.create(ds);
        reader = new FindingsReader(jdbi);
        insert(FindingKind.CHARGED_NOT_CONFIRMED, "RESOLVED", "2026-12-01T10:00:00Z");
        insert(FindingKind.CHARGED_NOT_CONFIRMED, "OPEN", "2026-12-01T11:00:00Z");
        insert(FindingKind.AMOUNT_MISMATCH, "OPEN", "2026-12-01T12:00:00Z");
    }

    @Test
    void shouldListNewestFirstFilteredByKindAndOpenness() throws Exception {
        JsonNode all = Json.mapper().readTree(reader.list(null, null, null).toJson());
        JsonNode openRefunds = Json.mapper().readTree(reader.list("charged_not_confirmed", "true", "10").toJson());
        JsonNode resolved = Json.mapper().readTree(reader.list("", "false", "").toJson());
        assertThat(all.get("items")).hasSize(3);
        assertThat(all.get("items").get(0).get("kind").asText()).isEqualTo("AMOUNT_MISMATCH");
        assertThat(openRefunds.get("items")).hasSize(1);
        JsonNode item = openRefunds.get("items").get(0);
        assertThat(item.get("state").asText()).isEqualTo("OPEN");
        assertThat(item.get("resolvedAt").isNull()).isTrue();
        for (String field : new String[] {"findingId", "kind", "orderId", "detail", "openedAt", "resolvedAt", "action",
            "subject", "repairKey", "repair"}) {
            assertThat(item.has(field)).as(field).isTrue();
        }
        assertThat(resolved.get("items")).singleElement().satisfies(i -> assertThat(i.get("resolvedAt").asText())
                .isNotEmpty());
    }

    @Test
    void shouldCountOnlyOpenFindingsPerKindForTheOverview() {
        assertThat(reader.openCounts()).containsExactly(java.util.Map.entry("AMOUNT_MISMATCH", 1L),
                java.util.Map.entry("CHARGED_NOT_CONFIRMED", 1L));
    }

    @Test
    void shouldRefuseParametersOutOfRangeNamingThem() {
        assertThatThrownBy(() -> reader.list("DOUBLE_CHARGE", null, null)).hasMessageContaining("kind");
        assertThatThrownBy(() -> reader.list(null, "yes", null)).hasMessageContaining("open");
        assertThatThrownBy(() -> reader.list(null, null, "0")).hasMessageContaining("limit");
    }

    private static void insert(FindingKind kind, String state, String openedAt) {
        String order = UUID.randomUUID().toString();
        jdbi.useHandle(h -> h.createUpdate("INSERT INTO reconciliation_finding (finding_id, kind, state, order_id,"
                        + " subject, detail, action, repair_key, repair, opened_at, resolved_at) VALUES (:id, :kind, :state,"
                        + " :order, :subject, 'test', :action, NULL, 'NONE', :opened, :resolved)")
                .bind("id", Finding.idOf(kind, order, order + ":charge")).bind("kind", kind.name()).bind("state", state)
                .bind("order", order).bind("subject", order + ":charge").bind("action", kind.action().name())
                .bind("opened", Timestamp.from(Instant.parse(openedAt)))
                .bind("resolved", state.equals("RESOLVED") ? Timestamp.from(Instant.parse(openedAt).plusSeconds(5))
                        : null).execute());
    }
}
