package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.sagas.app.AdminAccessIT.assertProblem;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;

/**
 * Acting on many sagas at once (docs/operations-admin.md, "Acting on many"): a dry run, a batch
 * paced at the rate asked, stop,
 * and a batch that outlives the process running it — on the real product, with real orders.
 */
@RealInfrastructure
class AdminBatchesIT extends GameDayLifecycle {
    private static final int ORDERS = 500;
    private static final int RATE = 50;

    @Override
    Map<String, String> settings() {
        return AdminHttp.SETTINGS;
    }

    @Test
    void shouldRetry500ParkedOrdersAtFiftyASecondAndSettleEachOnce() {
        // Given 500 orders accepted while inventory was down, parked on it, inventory back
        String customer = "c-batch-" + UUID.randomUUID().toString().substring(0, 8);
        String sku = Submissions.sku();
        product.stock(sku, ORDERS);
        List<UUID> ids = parked(customer, sku, ORDERS);
        AdminHttp admin = AdminHttp.operator(product);
        String filter = "{\"status\":[\"PENDING_CONFIRMATION\"],\"customerId\":\"" + customer + "\"}";
        long batchesBefore = admin.getJson("/admin/audit?action=batch-start&limit=1000").get("items").size();

        // When an operator asks for a dry run
        HttpResponse<String> dry = admin.post("/admin/batches", "{\"action\":\"retry\",\"dryRun\":true,\"filter\":"
                + filter + "}");

        // Then it counts and samples, and writes nothing
        assertThat(dry.statusCode()).as(dry.body()).isEqualTo(200);
        JsonNode preview = TestProduct.read(dry.body());
        assertThat(preview.path("matched").asInt()).isEqualTo(ORDERS);
        assertThat(preview.path("sample")).hasSize(10);
        assertThat(preview.path("batchId").isNull()).isTrue();
        assertThat(admin.getJson("/admin/audit?action=batch-start&limit=1000").get("items")).hasSize(
                (int) batchesBefore);

        // When the operator retries them all at 50 a second
        HttpResponse<String> started = admin.post("/admin/batches", "{\"action\":\"retry\",\"filter\":" + filter
                + ",\"maxRatePerSecond\":" + RATE + ",\"reason\":\"inventory outage over\"}");

        // Then the batch takes at least 10 s, acts on each order once, and every order is confirmed once
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        String batchId = TestProduct.read(started.body()).path("batchId").asText();
        JsonNode done = awaitBatch(admin, batchId, "COMPLETED", Duration.ofSeconds(180));
        Duration took = Duration.between(Instant.parse(done.path("createdAt").asText()),
                Instant.parse(done.path("finishedAt").asText()));
        System.out.printf("batch of %d retries at %d/s took %.1f s%n", ORDERS, RATE, took.toMillis() / 1000.0);
        assertThat(took).isGreaterThanOrEqualTo(Duration.ofSeconds(ORDERS / RATE));
        assertThat(done.path("processed").asInt()).isEqualTo(ORDERS);
        assertThat(done.path("applied").asInt()).isEqualTo(ORDERS);
        JsonNode audit = admin.getJson("/admin/audit?batchId=" + batchId + "&limit=1000").get("items");
        assertThat(new HashSet<>(audit.findValuesAsText("target"))).hasSize(ORDERS);
        Invariants.awaitSettled(product, ids, Duration.ofSeconds(240));
        assertThat(Invariants.statuses(product, ids)).containsExactly(Map.entry("CONFIRMED", (long) ORDERS));
        Invariants.check(product, ids);
    }

    @Test
    void shouldStopARunningBatch() {
        // Given a batch cancelling 20 parked orders at one a second
        String customer = "c-stop-" + UUID.randomUUID().toString().substring(0, 8);
        String sku = Submissions.sku();
        product.stock(sku, 20);
        List<UUID> ids = parked(customer, sku, 20);
        AdminHttp admin = AdminHttp.operator(product);
        String batchId = start(admin, "cancel", customer, 1);
        await().atMost(Duration.ofSeconds(30)).until(() -> processed(admin, batchId) >= 2);

        // When the operator stops it
        HttpResponse<String> stop = admin.post("/admin/batches/" + batchId + "/stop", AdminHttp.reason("enough"));

        // Then it stops: what was under way ends, nothing more starts, the rest stays as it was
        assertThat(stop.statusCode()).as(stop.body()).isEqualTo(200);
        assertThat(TestProduct.read(stop.body()).path("state").asText()).isEqualTo("STOPPED");
        int atStop = processed(admin, batchId);
        await("no more").during(Duration.ofSeconds(4)).atMost(Duration.ofSeconds(10))
                .until(() -> processed(admin, batchId) <= atStop + 1);
        int processed = processed(admin, batchId);
        assertThat(processed).isLessThan(20);
        long cancelled = ids.stream().filter(id -> product.status(id).equals("CANCELLED")).count();
        assertThat(cancelled).isEqualTo(processed);
        assertThat(ids.stream().filter(id -> product.status(id).equals("PENDING_CONFIRMATION")).count())
                .isEqualTo(20 - processed);
        assertProblem(admin.post("/admin/batches/" + batchId + "/stop", "{}"), 409);
        assertThat(admin.auditOf("batch:" + batchId).findValuesAsText("action")).contains("batch-start", "batch-stop");
    }

    @Test
    void shouldFinishABatchAfterTheProcessRunningItRestarts() {
        // Given a batch retrying 15 parked orders at two a second, a few of them done
        String customer = "c-restart-" + UUID.randomUUID().toString().substring(0, 8);
        String sku = Submissions.sku();
        product.stock(sku, 15);
        List<UUID> ids = parked(customer, sku, 15);
        String batchId = start(AdminHttp.operator(product), "retry", customer, 2);
        await().atMost(Duration.ofSeconds(30)).until(() -> processed(AdminHttp.operator(product), batchId) >= 3);
        String runnerBefore = batch(AdminHttp.operator(product), batchId).path("runner").asText();

        // When the process running it restarts
        product.restart();

        // Then the batch goes on from where it was, in the new process, and acts on each order once
        AdminHttp admin = AdminHttp.operator(product);
        JsonNode done = awaitBatch(admin, batchId, "COMPLETED", Duration.ofSeconds(90));
        assertThat(done.path("runner").asText()).isNotEqualTo(runnerBefore);
        assertThat(done.path("processed").asInt()).isEqualTo(15);
        List<String> targets = admin.getJson("/admin/audit?batchId=" + batchId + "&limit=100").get("items")
                .findValuesAsText("target");
        assertThat(targets).hasSize(15).doesNotHaveDuplicates();
        Invariants.awaitSettled(product, ids, Duration.ofSeconds(90));
        Invariants.check(product, ids);
    }

    @Test
    void shouldRefuseABatchWithoutAFilterOrWithAWrongOne() {
        AdminHttp admin = AdminHttp.operator(product);
        assertProblem(admin.post("/admin/batches", "{\"action\":\"retry\",\"filter\":{}}"), 400);
        assertProblem(admin.post("/admin/batches", "{\"action\":\"delete\",\"filter\":{\"status\":\"CONFIRMED\"}}"),
                400);
        assertProblem(admin.post("/admin/batches", "{\"action\":\"retry\",\"filter\":{\"colour\":\"red\"}}"), 400);
        assertProblem(admin.post("/admin/batches", "{\"action\":\"retry\",\"maxRatePerSecond\":0,"
                + "\"filter\":{\"status\":\"PENDING_CONFIRMATION\"}}"), 400);
        assertProblem(admin.get("/admin/batches/" + UUID.randomUUID()), 404);
    }

    private static String start(AdminHttp admin, String action, String customer, int rate) {
        HttpResponse<String> r = admin.post("/admin/batches", "{\"action\":\"" + action + "\",\"filter\":"
                + "{\"status\":\"PENDING_CONFIRMATION\",\"customerId\":\"" + customer + "\"},\"maxRatePerSecond\":"
                + rate + ",\"reason\":\"test\"}");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
        return TestProduct.read(r.body()).path("batchId").asText();
    }

    private static JsonNode batch(AdminHttp admin, String id) {
        return admin.getJson("/admin/batches/" + id);
    }

    private static int processed(AdminHttp admin, String id) {
        return batch(admin, id).path("processed").asInt();
    }

    private static JsonNode awaitBatch(AdminHttp admin, String id, String state, Duration within) {
        await("batch " + id + " " + state).atMost(within).pollInterval(Duration.ofMillis(500))
                .until(() -> state.equals(batch(admin, id).path("state").asText()));
        return batch(admin, id);
    }

    /** {@code count} orders of {@code customer} accepted while inventory was down; inventory healthy again. */
    private static List<UUID> parked(String customer, String sku, int count) {
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        // Admission is not this test's subject: a 503 that stored nothing is sent again, as a client would.
        List<Submissions.Answer> answers = Submissions.concurrentlyRetryingOverload(8,
                Collections.nCopies(count, TestProduct.order(customer, sku, 1, 100)), product::submit, 5);
        product.healthy();
        List<UUID> ids = new ArrayList<>();
        for (Submissions.Answer a : answers) {
            assertThat(a.orderStatus()).as("%s", a).isEqualTo("PENDING_CONFIRMATION");
            ids.add(a.orderId());
        }
        return ids;
    }
}
