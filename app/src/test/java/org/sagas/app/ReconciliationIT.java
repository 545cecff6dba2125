package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Discrepancies caused through the sandboxes' public APIs against the whole product, on the real
 * broker and PostgreSQL: each must become a finding of the right kind, and money and stock must be
 * repaired exactly once (one refund request per charge, one release request per reservation, one
 * repair command on the topic).
 */
@RealInfrastructure
class ReconciliationIT {
    /** Short waits so the test sees findings in seconds; the defaults are tens of seconds. */
    private static final Map<String, String> FAST = Map.of(
            "SAGA_RECONCILER_GRACE_MS", "1500",
            "SAGA_RECONCILER_UNKNOWN_ORDER_GRACE_MS", "3000",
            "SAGA_RECONCILER_REPLY_WINDOW_MS", "4000",
            "SAGA_RECONCILER_PULL_INTERVAL_MS", "200");
    private static final Duration WITHIN = Duration.ofSeconds(60);

    private static TestProduct product;
    private TestInfra infra;
    private Jdbi jdbi;
    private AdminHttp admin;

    @BeforeEach
    void start(TestInfra infra) {
        this.infra = infra;
        product = TestProduct.shared(infra);
        product.ensure(FAST);
        product.healthy();
        // The shared product may run on the database of the class that started it: read its database.
        jdbi = product.product().node().jdbi;
        admin = AdminHttp.operator(product);
    }

    @AfterEach
    void heal() {
        product.healthy();
    }

    @AfterAll
    static void back() {
        if (product != null) {
            product.defaults();
        }
    }

    @Test
    void shouldRefundOnceAChargeMadeDirectlyAtTheProviderForAnOrderThatDoesNotExist() {
        // Given a charge the orchestrator never asked for, for an order nobody placed
        String order = UUID.randomUUID().toString();
        String key = "direct-" + order;
        assertThat(post(product.payments("/charges"), "{\"orderId\":\"" + order
                + "\",\"amountCents\":4200,\"currency\":\"EUR\"}", key).statusCode()).isEqualTo(200);
        // Then it is found, refunded under <charge key>:refund, and resolved once the refund shows
        JsonNode finding = awaitFinding(order, "CHARGED_NOT_CONFIRMED", false);
        assertThat(finding.get("repairKey").asText()).isEqualTo(key + ":refund");
        assertThat(finding.get("repair").asText()).isEqualTo("REQUESTED");
        assertThat(finding.get("detail").asText()).contains("refund seen");
        assertThat(ledgerStatus(key)).isEqualTo("REFUNDED");
        assertRepairedOnce(order, "RefundCharge", refunds(key));
        // And it counts in saga_reconciliation_findings{kind,state}
        await().atMost(Duration.ofSeconds(20)).until(() -> product.metrics().value("saga_reconciliation_findings",
                "kind", "CHARGED_NOT_CONFIRMED", "state", "RESOLVED") >= 1);
    }

    @Test
    void shouldRefundOnceACaptureThatCameAfterTheOrderWasCancelled() {
        // Given an order cancelled because its payment was declined
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"declineRate\":1.0}");
        UUID order = TestProduct.orderId(product.submit(UUID.randomUUID().toString(),
                TestProduct.order("c-rec", sku, 1, 1999)));
        product.awaitStatus(order, "CANCELLED", WITHIN);
        product.paymentFaults("{\"declineRate\":0.0}");
        // When the provider captures for that order after all (its own retry, under another key)
        String key = order + ":charge:provider-retry";
        assertThat(post(product.payments("/charges"), "{\"orderId\":\"" + order
                + "\",\"amountCents\":1999,\"currency\":\"EUR\"}", key).statusCode()).isEqualTo(200);
        // Then the capture is found against the cancelled order and refunded once
        JsonNode finding = awaitFinding(order.toString(), "CHARGED_NOT_CONFIRMED", false);
        assertThat(finding.get("subject").asText()).isEqualTo(key);
        assertThat(ledgerStatus(key)).isEqualTo("REFUNDED");
        assertRepairedOnce(order.toString(), "RefundCharge", refunds(key));
        assertThat(product.status(order)).isEqualTo("CANCELLED");
    }

    @Test
    void shouldReleaseOnceStockReservedDirectlyForAnOrderThatDoesNotExist() {
        // Given stock held at inventory for an order nobody placed
        String sku = sku();
        product.stock(sku, 10);
        String order = UUID.randomUUID().toString();
        String key = order + ":reserve";
        assertThat(post(product.inventory("/reservations"), "{\"orderId\":\"" + order + "\",\"lines\":[{\"sku\":\""
                + sku + "\",\"quantity\":3}]}", key).statusCode()).isEqualTo(200);
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(7);
        // Then it is found and released, under the order's own release key, once
        JsonNode finding = awaitFinding(order, "RESERVED_NOT_ORDERED", false);
        assertThat(finding.get("repairKey").asText()).isEqualTo(order + ":release");
        assertThat(product.stockOf(sku).get("available").asInt()).isEqualTo(10);
        int releases = jdbi.withHandle(h -> h.createQuery(
                "SELECT count(*) FROM sandbox.release_request WHERE reservation_key = :k").bind("k", key)
                .mapTo(Integer.class).one());
        assertRepairedOnce(order, "ReleaseReservation", releases);
    }

    @Test
    void shouldFindAConfirmedOrderWhoseChargeWasRefundedAtTheProviderAndLeaveItToAnOperator() {
        // Given a confirmed order
        String sku = sku();
        product.stock(sku, 5);
        UUID order = TestProduct.orderId(product.submit(UUID.randomUUID().toString(),
                TestProduct.order("c-rec", sku, 1, 800)));
        product.awaitStatus(order, "CONFIRMED", WITHIN);
        // When its charge is refunded at the provider, behind the orchestrator's back
        assertThat(post(product.payments("/refunds"), "{\"chargeKey\":\"" + order + ":charge\"}",
                "operator-refund-" + order).statusCode()).isEqualTo(200);
        // Then it is found, with no automatic repair
        JsonNode finding = awaitFinding(order.toString(), "CONFIRMED_NOT_CHARGED", true);
        assertThat(finding.get("action").asText()).isEqualTo("NONE");
        assertThat(finding.get("repair").asText()).isEqualTo("NONE");
    }

    @Test
    void shouldFindACaptureOfAnotherAmountThanTheOrdersTotal() {
        // Given an order whose charge cannot go through yet (the provider is down) ...
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"down\":true}");
        UUID order = TestProduct.orderId(product.submit(UUID.randomUUID().toString(),
                TestProduct.order("c-rec", sku, 2, 1000)));
        await().atMost(WITHIN).until(() -> product.metrics().value("saga_consumer_retries_total", "topic",
                Topics.PAYMENTS_COMMANDS) >= 3);
        // ... when the provider comes back and captures a wrong amount under the order's own key first
        product.paymentFaults("{\"down\":false}");
        post(product.payments("/charges"), "{\"orderId\":\"" + order + "\",\"amountCents\":1500,\"currency\":\"EUR\"}",
                order + ":charge");
        // Then the order confirms with that capture, and the mismatch is found
        product.awaitStatus(order, "CONFIRMED", WITHIN);
        JsonNode finding = awaitFinding(order.toString(), "AMOUNT_MISMATCH", true);
        assertThat(finding.get("detail").asText()).contains("1500").contains("2000");
    }

    @Test
    void shouldFindAChargeWithoutReplyAndResolveItWhenTheReplyComes() {
        // Given an order whose charge command gets no answer while the provider is down
        String sku = sku();
        product.stock(sku, 5);
        product.paymentFaults("{\"down\":true}");
        UUID order = TestProduct.orderId(product.submit(UUID.randomUUID().toString(),
                TestProduct.order("c-rec", sku, 1, 300)));
        JsonNode open = awaitFinding(order.toString(), "CHARGE_WITHOUT_REPLY", true);
        assertThat(open.get("state").asText()).isEqualTo("OPEN");
        // When the provider comes back, the reply arrives and resolves it
        product.paymentFaults("{\"down\":false}");
        product.awaitStatus(order, "CONFIRMED", WITHIN);
        awaitFinding(order.toString(), "CHARGE_WITHOUT_REPLY", false);
    }

    @Test
    void shouldAnswerTheFindingsListWithAProblemForAKindThatDoesNotExist() {
        HttpResponse<String> answer = admin.get("/admin/reconciliation/findings?kind=DOUBLE_CHARGE");
        assertThat(answer.statusCode()).isEqualTo(400);
        assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(
                type -> assertThat(type).startsWith("application/problem+json"));
        assertThat(answer.body()).contains("kind");
        assertThat(admin.get("/admin/reconciliation/findings?colour=red").statusCode()).isEqualTo(400);
    }

    // ---- helpers ----------------------------------------------------------------------------------

    /** Waits for the finding of {@code kind} for {@code orderId}, open ({@code open}) or resolved. */
    private JsonNode awaitFinding(String orderId, String kind, boolean open) {
        return await().atMost(WITHIN).pollInterval(Duration.ofMillis(250)).until(() -> {
            JsonNode page = admin.getJson("/admin/reconciliation/findings?kind=" + kind + "&open=" + open
                    + "&limit=1000");
            for (JsonNode item : page.get("items")) {
                if (item.get("orderId").asText().equals(orderId)) {
                    return item;
                }
            }
            return null;
        }, f -> f != null);
    }

    /** One finding row, one repair command on the topic, one request at the participant. */
    private void assertRepairedOnce(String orderId, String repairType, int participantRequests) {
        int rows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM reconciliation_finding WHERE order_id = :o"
                + " AND action <> 'NONE'").bind("o", orderId).mapTo(Integer.class).one());
        assertThat(rows).isEqualTo(1);
        List<TopicReader.Message> repairs = TopicReader.messagesFor(infra.bootstrapServers(),
                Topics.RECONCILIATION_REPAIRS, List.of(orderId), 2, Duration.ofSeconds(2)).get(orderId);
        assertThat(repairs).extracting(TopicReader.Message::type).containsExactly(repairType);
        assertThat(participantRequests).isEqualTo(1);
    }

    private int refunds(String chargeKey) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM sandbox.refund_request WHERE charge_key = :k")
                .bind("k", chargeKey).mapTo(Integer.class).one());
    }

    private String ledgerStatus(String chargeKey) {
        return jdbi.withHandle(h -> h.createQuery("SELECT status FROM sandbox.charge WHERE idempotency_key = :k")
                .bind("k", chargeKey).mapTo(String.class).one());
    }

    private HttpResponse<String> post(URI uri, String body, String idempotencyKey) {
        return product.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json").header("Idempotency-Key", idempotencyKey)
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static String sku() {
        return "REC-" + UUID.randomUUID().toString().substring(0, 8);
    }
}
