package org.sagas.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * The sandboxes as docker-compose runs them (docs/security.md): the controls off, so the fault,
 * stock and trace routes do not exist; the ledgers only for the bearer of the ledger token.
 */
@RealInfrastructure
class SandboxAccessIT {
    private static final String TOKEN = UUID.randomUUID().toString();
    private static InventorySandbox inventory;
    private static PaymentSandbox payments;
    private static PlainHttp inventoryHttp;
    private static PlainHttp paymentHttp;

    @BeforeAll
    static void start(TestInfra infra) {
        DataSource dataSource = infra.dataSource(6);
        Migrations.apply(dataSource);
        SandboxAccess access = SandboxAccess.of(false, TOKEN);
        inventory = InventorySandbox.start(dataSource, "127.0.0.1", 0, access);
        payments = PaymentSandbox.start(dataSource, "127.0.0.1", 0, access);
        inventoryHttp = new PlainHttp(inventory.port());
        paymentHttp = new PlainHttp(payments.port());
    }

    @AfterAll
    static void stop() {
        inventory.close();
        payments.close();
    }

    @Test
    void shouldAnswerTheControlsAsUnknownRoutesWhenTheyAreOff() {
        // Given sandboxes running without their controls
        String sku = "sku-" + UUID.randomUUID();
        // When a client tries to stock a SKU, inject faults or read them
        // Then each is 404, as for a path that does not exist, and nothing changed
        assertThat(inventoryHttp.put("/stock/" + sku, "{\"available\":5}").status()).isEqualTo(404);
        assertThat(inventoryHttp.put("/_faults", "{\"down\":true}").status()).isEqualTo(404);
        assertThat(inventoryHttp.get("/_faults").status()).isEqualTo(404);
        assertThat(paymentHttp.put("/_faults", "{\"declineRate\":1.0}").status()).isEqualTo(404);
        assertThat(paymentHttp.get("/_faults").status()).isEqualTo(404);
        assertThat(paymentHttp.get("/_traceparents/" + sku).status()).isEqualTo(404);
        assertThat(inventoryHttp.get("/stock/" + sku).json().get("available").asInt()).isZero();
        assertThat(inventory.faults()).isEqualTo(InventoryFaults.NONE);
        assertThat(payments.faults()).isEqualTo(PaymentFaults.NONE);
        assertThat(inventory.routes()).doesNotContain("PUT /stock/{sku}", "PUT /_faults", "GET /_faults");
        assertThat(payments.routes()).doesNotContain("PUT /_faults", "GET /_faults", "GET /_traceparents/{key}");
    }

    @Test
    void shouldServeTheLedgersOnlyToTheBearerOfTheToken() {
        // Given a charge and a reservation of one order
        UUID order = UUID.randomUUID();
        assertThat(paymentHttp.post("/charges", "{\"orderId\":\"" + order
                + "\",\"amountCents\":100,\"currency\":\"EUR\"}", "Idempotency-Key", order + ":charge").status())
                .isEqualTo(200);
        assertThat(inventoryHttp.post("/reservations", "{\"orderId\":\"" + order
                + "\",\"lines\":[{\"sku\":\"sku-" + order + "\",\"quantity\":1}]}", "Idempotency-Key",
                order + ":reserve").status()).isEqualTo(200);
        for (String ledger : ledgers(order)) {
            PlainHttp http = ledger.startsWith("/charges") ? paymentHttp : inventoryHttp;
            // When a ledger is asked without a token, with another one, a part of it, another scheme
            PlainHttp.Answer none = http.getWith(ledger);
            PlainHttp.Answer wrong = http.getWith(ledger, "Authorization", "Bearer " + UUID.randomUUID());
            PlainHttp.Answer prefix = http.getWith(ledger, "Authorization", "Bearer " + TOKEN.substring(0, 8));
            PlainHttp.Answer basic = http.getWith(ledger, "Authorization", "Basic " + TOKEN);
            // Then each is 401, problem+json, without the token in it
            assertThat(List.of(none, wrong, prefix, basic)).as(ledger).allSatisfy(answer -> {
                assertThat(answer.status()).isEqualTo(401);
                assertThat(answer.contentType()).startsWith(SandboxServer.PROBLEM_JSON);
                assertThat(answer.body()).doesNotContain(TOKEN);
            });
            // And with the token it answers
            assertThat(http.getWith(ledger, "Authorization", "Bearer " + TOKEN).status()).as(ledger).isEqualTo(200);
        }
        // And with the token the order's entries are listed
        PlainHttp.Answer charges = paymentHttp.getWith("/charges?orderId=" + order, "Authorization", "Bearer " + TOKEN);
        assertThat(charges.json().get(0).get("idempotencyKey").asText()).isEqualTo(order + ":charge");
        PlainHttp.Answer held = inventoryHttp.getWith("/reservations?orderId=" + order, "Authorization",
                "bearer " + TOKEN);
        assertThat(held.json().get(0).get("key").asText()).isEqualTo(order + ":reserve");
    }

    @Test
    void shouldCloseTheLedgersToEveryoneWhenNoTokenIsSet(TestInfra infra) {
        // Given a provider started without a ledger token
        try (PaymentSandbox closed = PaymentSandbox.start(infra.dataSource(2), "127.0.0.1", 0,
                SandboxAccess.of(true, ""))) {
            PlainHttp http = new PlainHttp(closed.port());
            // When its ledger is asked with an empty bearer, or any other
            // Then it is 401 either way
            assertThat(http.getWith("/charges", "Authorization", "Bearer ").status()).isEqualTo(401);
            assertThat(http.getWith("/charges", "Authorization", "Bearer " + TOKEN).status()).isEqualTo(401);
            assertThat(http.getWith("/charges?since=&limit=5").status()).isEqualTo(401);
        }
    }

    /** The listings and the change feeds of both ledgers. */
    private static List<String> ledgers(UUID order) {
        return List.of("/charges", "/charges?orderId=" + order, "/charges?since=&limit=5",
                "/reservations", "/reservations?orderId=" + order, "/reservations?since=&limit=5");
    }
}
