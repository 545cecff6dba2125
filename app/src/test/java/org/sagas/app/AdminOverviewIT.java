package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;

/**
 * {@code GET /admin/overview}: the figures of the console's overview in one
 * read-only answer, each from where it is kept.
 */
@RealInfrastructure
class AdminOverviewIT extends GameDayLifecycle {
    @Override
    Map<String, String> settings() {
        return AdminHttp.SETTINGS;
    }

    @Test
    void shouldCountPendingOrdersAndIncidentsAndShowEachDependencysBreaker() {
        // Given an order accepted while the inventory was down, marked as an incident
        JsonNode before = AdminHttp.operator(product).getJson("/admin/overview");
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        HttpResponse<String> r = product.submit(Submissions.key(), TestProduct.order("c-overview", Submissions.sku(), 1,
                300));
        product.healthy();
        UUID id = TestProduct.orderId(r);
        product.product().node().jdbi.useHandle(h -> h.createUpdate("UPDATE saga_instance SET incident_cause ="
                + " 'PARTICIPANT_REFUSED', incident_detail = 'test', incident_at = now() WHERE saga_id = :id")
                .bind("id", id).execute());

        // When the overview is read (one answer serves every console for a second: it may take that long)
        JsonNode after = await().atMost(Duration.ofSeconds(5)).until(() -> AdminHttp.operator(product)
                .getJson("/admin/overview"), o -> o.path("incidents").path("PARTICIPANT_REFUSED").asLong()
                > before.path("incidents").path("PARTICIPANT_REFUSED").asLong());

        // Then it counts the pending order and the incident, and the oldest pending order's age
        // (at least ours: orders earlier classes left parked may resume meanwhile)
        assertThat(after.path("orders").path("PENDING_CONFIRMATION").asLong()).isPositive();
        assertThat(AdminHttp.operator(product).getJson("/admin/sagas?status=PENDING_CONFIRMATION&customerId=c-overview")
                .path("items").findValuesAsText("orderId")).contains(id.toString());
        assertThat(after.path("pendingConfirmation").path("count").asLong())
                .isEqualTo(after.path("orders").path("PENDING_CONFIRMATION").asLong());
        assertThat(after.path("pendingConfirmation").path("oldestAgeSeconds").isIntegralNumber()).isTrue();
        assertThat(after.path("incidents").path("PARTICIPANT_REFUSED").asLong())
                .isEqualTo(before.path("incidents").path("PARTICIPANT_REFUSED").asLong() + 1);
        // And each dependency's breaker (the inventory runs without one in these settings)
        assertThat(after.path("breakers").findValuesAsText("dependency")).containsExactly("inventory", "payment");
        assertThat(after.path("breakers").findValuesAsText("state")).containsExactly("NO_BREAKER", "CLOSED");
        // And the outbox, the dead letters and the findings, with nothing unavailable
        assertThat(after.path("outbox").path("pendingRows").isIntegralNumber()).isTrue();
        assertThat(after.path("outbox").path("deadLetters").asLong()).isGreaterThanOrEqualTo(0);
        assertThat(after.path("kafkaDeadLetters").findValuesAsText("topic")).contains("orders.events.dlt");
        assertThat(after.path("openFindings").isObject()).isTrue();
        assertThat(after.path("unavailable").size()).as(after.toString()).isZero();
        product.product().node().jdbi.useHandle(h -> h.createUpdate("UPDATE saga_instance SET incident_cause = NULL,"
                + " incident_detail = NULL, incident_at = NULL WHERE saga_id = :id").bind("id", id).execute());
    }

    @Test
    void shouldAnswerTheOverviewToAViewer() {
        assertThat(new AdminHttp(product, TestProduct.VIEWER_TOKEN).get("/admin/overview").statusCode()).isEqualTo(200);
        assertThat(new AdminHttp(product, null).get("/admin/overview").statusCode()).isEqualTo(401);
    }
}
