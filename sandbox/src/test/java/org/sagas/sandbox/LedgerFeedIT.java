package org.sagas.sandbox;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.migrations.Migrations;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** The participants' ledgers as change feeds ({@code ?since=&limit=}): paged, nothing skipped, nothing twice. */
@RealInfrastructure
class LedgerFeedIT {
    private static DataSource dataSource;
    private static PaymentSandbox payments;
    private static InventorySandbox inventory;
    private static PlainHttp paymentHttp;
    private static PlainHttp inventoryHttp;

    @BeforeAll
    static void start(TestInfra infra) {
        dataSource = infra.dataSource(10);
        Migrations.apply(dataSource);
        // The reconciler reads the feeds with the ledger token; the controls stock a SKU below.
        String token = UUID.randomUUID().toString();
        SandboxAccess access = SandboxAccess.of(true, token);
        payments = PaymentSandbox.start(dataSource, "127.0.0.1", 0, access);
        inventory = InventorySandbox.start(dataSource, "127.0.0.1", 0, access);
        paymentHttp = new PlainHttp(payments.port(), token);
        inventoryHttp = new PlainHttp(inventory.port(), token);
    }

    @AfterAll
    static void stop() {
        payments.close();
        inventory.close();
    }

    @Test
    void shouldListEveryChargeOnceAcrossPagesAndARefundAsALaterChange() {
        // Given five charges
        String start = tail(paymentHttp, "/charges");
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            UUID order = UUID.randomUUID();
            keys.add(order + ":charge");
            assertThat(charge(order, order + ":charge", 100 + i).status()).isEqualTo(200);
        }
        // When the feed is read two by two from where it stood
        Read read = readAll(paymentHttp, "/charges", start, 2);
        // Then each charge is listed once, in the order they were made, captured
        assertThat(read.items()).extracting(i -> i.get("idempotencyKey").asText()).containsExactlyElementsOf(keys);
        assertThat(read.items()).allSatisfy(i -> assertThat(i.get("status").asText()).isEqualTo("CAPTURED"));
        assertThat(read.pages()).isEqualTo(3);
        // And when one is refunded, only that charge is listed after the cursor, now REFUNDED
        assertThat(paymentHttp.post("/refunds", "{\"chargeKey\":\"" + keys.get(1) + "\"}", "Idempotency-Key",
                keys.get(1) + ":refund").status()).isEqualTo(200);
        Read after = readAll(paymentHttp, "/charges", read.cursor(), 100);
        assertThat(after.items()).extracting(i -> i.get("idempotencyKey").asText() + " " + i.get("status").asText())
                .containsExactly(keys.get(1) + " REFUNDED");
    }

    @Test
    void shouldHoldBackChangesBehindATransactionStillRunningSoThatNoneIsSkipped() throws Exception {
        // Given a charge being written by a transaction that has not committed yet
        String start = tail(paymentHttp, "/charges");
        String slowKey = UUID.randomUUID() + ":charge";
        String fastKey = UUID.randomUUID() + ":charge";
        try (Connection slow = dataSource.getConnection()) {
            slow.setAutoCommit(false);
            try (PreparedStatement insert = slow.prepareStatement("INSERT INTO sandbox.charge (idempotency_key,"
                    + " order_id, amount_cents, currency, status) VALUES (?, 'o-slow', 1, 'EUR', 'CAPTURED')")) {
                insert.setString(1, slowKey);
                insert.executeUpdate();
            }
            // When a later charge commits first and the feed is read
            assertThat(charge(UUID.randomUUID(), fastKey, 5).status()).isEqualTo(200);
            Read during = readAll(paymentHttp, "/charges", start, 100);
            // Then the later charge is held back too: listing it would move the cursor past the slow one
            assertThat(during.items()).isEmpty();
            slow.commit();
        }
        // And once the slow transaction ended, both are listed, the slow one first
        Read after = readAll(paymentHttp, "/charges", start, 100);
        assertThat(after.items()).extracting(i -> i.get("idempotencyKey").asText()).containsExactly(slowKey, fastKey);
    }

    @Test
    void shouldListReservationsAndTheirReleaseAsChanges() {
        // Given stock and a reservation
        String sku = "FEED-" + UUID.randomUUID().toString().substring(0, 8);
        inventoryHttp.put("/stock/" + sku, "{\"available\":5}");
        String start = tail(inventoryHttp, "/reservations");
        String order = UUID.randomUUID().toString();
        String body = "{\"orderId\":\"" + order + "\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":2}]}";
        assertThat(inventoryHttp.post("/reservations", body, "Idempotency-Key", order + ":reserve").status())
                .isEqualTo(200);
        Read reserved = readAll(inventoryHttp, "/reservations", start, 10);
        // When it is released
        assertThat(inventoryHttp.post("/reservations/" + order + ":reserve/release", "{\"orderId\":\"" + order + "\"}",
                "Idempotency-Key", order + ":release").status()).isEqualTo(200);
        Read released = readAll(inventoryHttp, "/reservations", reserved.cursor(), 10);
        // Then the feed showed it RESERVED with its lines, then RELEASED
        assertThat(reserved.items()).hasSize(1);
        assertThat(reserved.items().get(0).get("status").asText()).isEqualTo("RESERVED");
        assertThat(reserved.items().get(0).get("lines").get(0).get("quantity").asInt()).isEqualTo(2);
        assertThat(released.items()).extracting(i -> i.get("key").asText() + " " + i.get("status").asText())
                .containsExactly(order + ":reserve RELEASED");
    }

    @Test
    void shouldRefuseACursorItNeverGaveOutAndALimitOutOfRange() {
        PlainHttp.Answer badCursor = paymentHttp.get("/charges?since=yesterday");
        PlainHttp.Answer badLimit = inventoryHttp.get("/reservations?since=&limit=5000");
        assertThat(badCursor.status()).isEqualTo(400);
        assertThat(badCursor.contentType()).startsWith("application/problem+json");
        assertThat(badCursor.json().get("detail").asText()).contains("since");
        assertThat(badLimit.status()).isEqualTo(400);
        assertThat(badLimit.json().get("detail").asText()).contains("limit");
    }

    @Test
    void shouldKeepAnsweringTheLedgerOfAnOrderAsBefore() {
        UUID order = UUID.randomUUID();
        charge(order, order + ":charge", 700);
        JsonNode ledger = paymentHttp.get("/charges?orderId=" + order).json();
        assertThat(ledger.isArray()).isTrue();
        assertThat(ledger).hasSize(1);
        assertThat(ledger.get(0).has("cursor")).isFalse();
    }

    private record Read(List<JsonNode> items, String cursor, int pages) {}

    private static PlainHttp.Answer charge(UUID order, String key, long amount) {
        return paymentHttp.post("/charges", "{\"orderId\":\"" + order + "\",\"amountCents\":" + amount
                + ",\"currency\":\"EUR\"}", "Idempotency-Key", key);
    }

    /** The cursor after everything the feed holds now. */
    private static String tail(PlainHttp http, String path) {
        return readAll(http, path, "", 1000).cursor();
    }

    private static Read readAll(PlainHttp http, String path, String since, int limit) {
        List<JsonNode> items = new ArrayList<>();
        String cursor = since;
        int pages = 0;
        while (true) {
            PlainHttp.Answer answer = http.get(path + "?since=" + cursor + "&limit=" + limit);
            assertThat(answer.status()).as(answer.body()).isEqualTo(200);
            pages++;
            JsonNode page = answer.json();
            page.get("items").forEach(items::add);
            cursor = page.get("nextCursor").asText();
            if (page.get("items").size() < limit) {
                return new Read(items, cursor, pages);
            }
        }
    }
}
