package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.sagas.orchestrator.http.EdgeLimits;
import org.sagas.orchestrator.http.OrderRequestParser;
import org.sagas.orchestrator.ordering.OrderService;
import org.sagas.testkit.RealInfrastructure;

/**
 * Each listener's {@code GET /openapi.json} is the truth about it: every route
 * the server registers is in its document and nothing else is, and real answers of the real
 * product — accepted, replayed, pending, refused for each reason that can be provoked, the
 * operator API's lists, actions, batches, dead letters, findings and console, the sandbox
 * participants' stock, reservations, charges, refunds and faults — have a status,
 * content type, headers and body the document allows. The last test checks that every documented
 * operation was exercised.
 */
@RealInfrastructure
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class OpenApiContractIT extends GameDayLifecycle {
    private static final OpenApiContract PUBLIC = OpenApiContract.publicApi();
    private static final OpenApiContract ADMIN = OpenApiContract.adminApi();
    private static final OpenApiContract OPS = OpenApiContract.opsApi();
    private static final OpenApiContract INVENTORY = OpenApiContract.inventory();
    private static final OpenApiContract PAYMENT = OpenApiContract.payment();
    private static final String KEY_A = "contract-key-a-0123456789";
    private static final String KEY_B = "contract-key-b-0123456789";
    private static Path keysFile;

    @AfterAll
    static void removeKeys() throws IOException {
        if (keysFile != null) {
            Files.deleteIfExists(keysFile);
        }
    }

    @Test
    @Order(1)
    void shouldDescribeExactlyTheRoutesEachListenerRegistersAndServeItWithoutAToken() {
        // Given the product as the operator API's tests run it, and an ops listener as a worker process has it
        product.ensure(AdminHttp.SETTINGS);
        try (OpsServer ops = OpsServer.start(() -> Map.of("postgres", true), new PrometheusMeterRegistry(
                PrometheusConfig.DEFAULT), "127.0.0.1", 0,
                // Product adds /health/components on both listeners; the public one proves it is the product's.
                routes -> routes.get("/health/components", ctx -> ctx.json(Map.of())), EdgeLimits.defaults())) {
            // Then each listener registers what its document describes, no more, no less
            Map<String, java.util.List<String>> routes = product.product().routesByListener();
            assertThat(routes).containsOnlyKeys("public", "admin", "inventory", "payment");
            assertThat(routes.get("public")).containsExactlyInAnyOrderElementsOf(PUBLIC.operations());
            assertThat(routes.get("admin")).containsExactlyInAnyOrderElementsOf(ADMIN.operations());
            assertThat(routes.get("inventory")).containsExactlyInAnyOrderElementsOf(INVENTORY.operations());
            assertThat(routes.get("payment")).containsExactlyInAnyOrderElementsOf(PAYMENT.operations());
            assertThat(ops.routes()).containsExactlyInAnyOrderElementsOf(OPS.operations());

            // And each serves its document as the jar holds it, to anyone
            URI opsBase = URI.create("http://127.0.0.1:" + ops.port());
            assertThat(served(PUBLIC, product.api("/openapi.json"))).isEqualTo(PUBLIC.document());
            assertThat(served(ADMIN, product.admin("/openapi.json"))).isEqualTo(ADMIN.document());
            assertThat(served(OPS, opsBase.resolve("/openapi.json"))).isEqualTo(OPS.document());
            assertThat(served(INVENTORY, product.inventory("/openapi.json"))).isEqualTo(INVENTORY.document());
            assertThat(served(PAYMENT, product.payments("/openapi.json"))).isEqualTo(PAYMENT.document());
            for (String path : new String[] {"/health/live", "/health/ready", "/health/components", "/metrics"}) {
                OPS.check("GET", path, send("GET", opsBase.resolve(path), null));
            }
        }
    }

    @Test
    @Order(2)
    void shouldAnswerOrdersAsThePublicContractSaysOnAnOpenApi() {
        product.ensure(AdminHttp.SETTINGS);
        String sku = Submissions.sku();
        product.stock(sku, 10);
        String body = TestProduct.order("c-contract", sku, 1, 500);

        // Accepted, then replayed, then the key reused with another body
        String key = Submissions.key();
        HttpResponse<String> accepted = submit(key, body);
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        HttpResponse<String> replayed = submit(key, body);
        assertThat(replayed.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(submit(key, TestProduct.order("c-contract", sku, 2, 500)).statusCode()).isEqualTo(422);
        // Out of stock, and pending while inventory is down
        String none = Submissions.sku();
        product.stock(none, 0);
        assertThat(submit(Submissions.key(), TestProduct.order("c-contract", none, 1, 5)).statusCode()).isEqualTo(422);
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        HttpResponse<String> pending = submit(Submissions.key(), body);
        // Cancelled while inventory cannot release its stock: under way
        HttpResponse<String> undoing = cancel(TestProduct.orderId(pending).toString(), Submissions.key());
        product.healthy();
        assertThat(pending.body()).contains("PENDING_CONFIRMATION");
        assertThat(undoing.statusCode()).as(undoing.body()).isEqualTo(202);
        // A request still in progress under its key (claimed by a request that has not answered)
        String inFlight = Submissions.key();
        claimInFlight(inFlight, body);
        assertThat(submit(inFlight, body).statusCode()).isEqualTo(409);
        // Invalid input, a passed deadline, a body too large
        assertThat(submit(null, body).statusCode()).isEqualTo(400);
        assertThat(submit(Submissions.key(), "{\"customerId\":").statusCode()).isEqualTo(400);
        assertThat(submit(Submissions.key(), body, "X-Priority", "urgent").statusCode()).isEqualTo(400);
        assertThat(submit(Submissions.key(), body, "X-Deadline", "soon").statusCode()).isEqualTo(400);
        assertThat(submit(Submissions.key(), body, "X-Deadline", "1").statusCode()).isEqualTo(503);
        assertThat(submit(Submissions.key(), "{\"customerId\":\"" + "x".repeat(70 * 1024) + "\"}").statusCode())
                .isEqualTo(413);

        // Reading orders
        UUID id = TestProduct.orderId(accepted);
        product.awaitStatus(id, "CONFIRMED", Duration.ofSeconds(60));
        assertThat(get(PUBLIC, "/orders/{id}", product.api("/orders/" + id)).statusCode()).isEqualTo(200);
        assertThat(get(PUBLIC, "/orders/{id}", product.api("/orders/" + UUID.randomUUID())).statusCode())
                .isEqualTo(404);
        assertThat(get(PUBLIC, "/orders/{id}", product.api("/orders/not-an-id")).statusCode()).isEqualTo(400);
        assertThat(get(PUBLIC, "/orders", product.api("/orders?limit=5")).statusCode()).isEqualTo(200);
        assertThat(get(PUBLIC, "/orders", product.api("/orders?status=CONFIRMED&limit=2")).statusCode())
                .isEqualTo(200);
        assertThat(get(PUBLIC, "/orders", product.api("/orders?status=SHIPPED")).statusCode()).isEqualTo(400);
        // Cancelling: too late for a confirmed order; an order awaiting payment ends at once, replayed;
        // an unknown order, a key used for another request, no key, not an id
        assertThat(cancel(id.toString(), Submissions.key()).statusCode()).isEqualTo(409);
        // (a provider that takes 3 s keeps it awaiting payment until the cancel, however fast the rest is)
        product.paymentFaults("{\"latencyMs\":3000}");
        UUID waiting = TestProduct.orderId(submit(Submissions.key(), body));
        String cancelKey = Submissions.key();
        HttpResponse<String> cancelled = cancel(waiting.toString(), cancelKey);
        product.paymentFaults("{\"latencyMs\":0}");
        assertThat(cancelled.statusCode()).as(cancelled.body()).isEqualTo(200);
        assertThat(cancel(waiting.toString(), cancelKey).headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(cancel(UUID.randomUUID().toString(), Submissions.key()).statusCode()).isEqualTo(404);
        assertThat(cancel(waiting.toString(), key).statusCode()).isEqualTo(422);
        assertThat(cancel(waiting.toString(), null).statusCode()).isEqualTo(400);
        assertThat(cancel("not-an-id", Submissions.key()).statusCode()).isEqualTo(400);
        assertThat(get(PUBLIC, "/orders", product.api("/orders?limit=0")).statusCode()).isEqualTo(400);
        for (String path : new String[] {"/health/live", "/health/ready", "/health/components", "/metrics"}) {
            get(PUBLIC, path, product.api(path));
        }
    }

    @Test
    @Order(3)
    void shouldAnswerRefusalsAsThePublicContractSaysWithApiKeys() throws IOException {
        // Given API keys, one submission a second per key, and degraded mode off
        keysFile = Files.createTempFile("contract-keys", ".txt");
        Files.writeString(keysFile, KEY_A + " c-contract-a\n" + KEY_B + " c-contract-b\n");
        product.ensure(Map.of("SAGA_API_KEYS_FILE", keysFile.toString(), "SAGA_CLIENT_RATE", "1",
                "SAGA_CLIENT_BURST", "1", "SAGA_DEGRADED_MODE", "false"));
        String sku = Submissions.sku();
        product.stock(sku, 100);

        // No key, or a key for another customer
        assertThat(submit(Submissions.key(), TestProduct.order("c-contract-a", sku, 1, 5)).statusCode())
                .isEqualTo(401);
        assertThat(get(PUBLIC, "/orders", product.api("/orders")).statusCode()).isEqualTo(401);
        assertThat(get(PUBLIC, "/orders/{id}", product.api("/orders/" + UUID.randomUUID())).statusCode())
                .isEqualTo(401);
        assertThat(cancel(UUID.randomUUID().toString(), Submissions.key()).statusCode()).isEqualTo(401);
        assertThat(submit(Submissions.key(), TestProduct.order("c-contract-b", sku, 1, 5), "Authorization",
                "Bearer " + KEY_A).statusCode()).isEqualTo(403);
        // Over the client's rate
        String b = TestProduct.order("c-contract-b", sku, 1, 5);
        submit(Submissions.key(), b, "Authorization", "Bearer " + KEY_B);
        HttpResponse<String> limited = submit(Submissions.key(), b, "Authorization", "Bearer " + KEY_B);
        assertThat(limited.statusCode()).as(limited.body()).isEqualTo(429);
        // Inventory down with degraded mode off: stored as REJECTED, answered 503
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        HttpResponse<String> unavailable = submit(Submissions.key(), TestProduct.order("c-contract-a", sku, 1, 5),
                "Authorization", "Bearer " + KEY_A);
        product.healthy();
        assertThat(unavailable.statusCode()).as(unavailable.body()).isEqualTo(503);
        assertThat(unavailable.body()).contains("inventory-unavailable", "orderId");
        // And the key's own order reads back
        UUID mine = TestProduct.orderId(unavailable);
        HttpResponse<String> read = send("GET", product.api("/orders/" + mine), null, "Authorization", "Bearer " + KEY_A);
        PUBLIC.check("GET", "/orders/{id}", read);
        assertThat(read.statusCode()).isEqualTo(200);
    }

    @Test
    @Order(4)
    void shouldAnswerTheOperatorApiAsItsContractSays() {
        product.ensure(AdminHttp.SETTINGS);
        String customer = "c-contract-" + UUID.randomUUID().toString().substring(0, 8);
        String sku = Submissions.sku();
        product.stock(sku, 10);
        UUID confirmed = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order(customer, sku, 1, 9)));
        product.inventoryFaults(GameDay.INVENTORY_DOWN);
        UUID parked1 = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order(customer, sku, 1, 9)));
        UUID parked2 = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order(customer, sku, 1, 9)));
        UUID parked3 = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order(customer, sku, 1, 9)));
        product.healthy();
        product.awaitStatus(confirmed, "CONFIRMED", Duration.ofSeconds(60));

        // Who may ask
        assertThat(admin("GET", "/admin/sagas", "/admin/sagas", null, null).statusCode()).isEqualTo(401);
        assertThat(admin("POST", "/admin/sagas/{orderId}/retry", "/admin/sagas/" + parked1 + "/retry", "{}",
                TestProduct.VIEWER_TOKEN).statusCode()).isEqualTo(403);
        assertThat(admin("GET", "/admin/whoami", "/admin/whoami", null).statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/admin/definitions", "/admin/definitions", null).statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/admin/definitions", "/admin/definitions?type=order", null).statusCode())
                .isEqualTo(400);
        // Finding and inspecting
        assertThat(admin("GET", "/admin/sagas", "/admin/sagas?customerId=" + customer + "&limit=2", null)
                .statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/admin/sagas", "/admin/sagas?status=SHIPPED", null).statusCode()).isEqualTo(400);
        assertThat(admin("GET", "/admin/sagas/{orderId}", "/admin/sagas/" + confirmed, null).statusCode())
                .isEqualTo(200);
        assertThat(admin("GET", "/admin/sagas/{orderId}", "/admin/sagas/" + parked1, null).statusCode())
                .isEqualTo(200);
        assertThat(admin("GET", "/admin/sagas/{orderId}", "/admin/sagas/" + UUID.randomUUID(), null).statusCode())
                .isEqualTo(404);
        assertThat(admin("GET", "/admin/sagas/{orderId}", "/admin/sagas/not-an-id", null).statusCode())
                .isEqualTo(400);
        assertThat(admin("GET", "/admin/incidents", "/admin/incidents?limit=5", null).statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/admin/incidents", "/admin/incidents?colour=red", null).statusCode()).isEqualTo(400);
        // Acting on one
        String reason = AdminHttp.reason("contract test");
        assertThat(admin("POST", "/admin/sagas/{orderId}/retry", "/admin/sagas/" + parked1 + "/retry", reason)
                .statusCode()).isEqualTo(200);
        assertThat(admin("POST", "/admin/sagas/{orderId}/retry", "/admin/sagas/" + confirmed + "/retry", reason)
                .statusCode()).isEqualTo(409);
        assertThat(admin("POST", "/admin/sagas/{orderId}/retry", "/admin/sagas/" + parked1 + "/retry",
                "{\"reason\":\"" + "x".repeat(70 * 1024) + "\"}").statusCode()).isEqualTo(413);
        assertThat(admin("POST", "/admin/sagas/{orderId}/cancel", "/admin/sagas/" + parked2 + "/cancel", reason)
                .statusCode()).isEqualTo(200);
        assertThat(admin("POST", "/admin/sagas/{orderId}/cancel", "/admin/sagas/" + confirmed + "/cancel", reason)
                .statusCode()).isEqualTo(409);
        assertThat(admin("POST", "/admin/sagas/{orderId}/cancel", "/admin/sagas/" + UUID.randomUUID() + "/cancel",
                reason).statusCode()).isEqualTo(404);
        String outcome = "/admin/sagas/{orderId}/payment-outcome";
        assertThat(admin("POST", outcome, "/admin/sagas/" + confirmed + "/payment-outcome",
                "{\"outcome\":\"CAPTURED\"}").statusCode()).isEqualTo(409);
        assertThat(admin("POST", outcome, "/admin/sagas/" + confirmed + "/payment-outcome",
                "{\"outcome\":\"MAYBE\"}").statusCode()).isEqualTo(400);
        // Batches: a dry run, a real one, its progress, stopping it
        String filter = "\"filter\":{\"customerId\":\"" + customer + "\",\"status\":\"PENDING_CONFIRMATION\"}";
        assertThat(admin("POST", "/admin/batches", "/admin/batches", "{\"action\":\"retry\"," + filter
                + ",\"dryRun\":true}").statusCode()).isEqualTo(200);
        assertThat(admin("POST", "/admin/batches", "/admin/batches", "{\"action\":\"retry\"," + filter + "}",
                TestProduct.VIEWER_TOKEN).statusCode()).isEqualTo(403);
        assertThat(admin("POST", "/admin/batches", "/admin/batches", "{\"action\":\"shred\"," + filter + "}")
                .statusCode()).isEqualTo(400);
        HttpResponse<String> started = admin("POST", "/admin/batches", "/admin/batches", "{\"action\":\"retry\","
                + filter + ",\"maxRatePerSecond\":0.5,\"reason\":\"contract\"}");
        assertThat(started.statusCode()).as(started.body()).isEqualTo(202);
        String batch = TestProduct.read(started.body()).get("batchId").asText();
        assertThat(admin("GET", "/admin/batches/{batchId}", "/admin/batches/" + batch, null).statusCode())
                .isEqualTo(200);
        assertThat(admin("GET", "/admin/batches/{batchId}", "/admin/batches/" + UUID.randomUUID(), null)
                .statusCode()).isEqualTo(404);
        assertThat(admin("GET", "/admin/batches", "/admin/batches?limit=3", null).statusCode()).isEqualTo(200);
        assertThat(admin("GET", "/admin/batches", "/admin/batches?state=LOST", null).statusCode()).isEqualTo(400);
        String stop = "/admin/batches/{batchId}/stop";
        assertThat(admin("POST", stop, "/admin/batches/" + batch + "/stop", reason).statusCode()).isIn(200, 409);
        assertThat(admin("POST", stop, "/admin/batches/" + batch + "/stop", reason).statusCode()).isEqualTo(409);
        assertThat(admin("POST", stop, "/admin/batches/" + UUID.randomUUID() + "/stop", reason).statusCode())
                .isEqualTo(404);
        // Dead letters
        assertThat(admin("GET", "/admin/outbox/dead-letters", "/admin/outbox/dead-letters?limit=5", null)
                .statusCode()).isEqualTo(200);
        assertThat(admin("POST", "/admin/outbox/dead-letters/{id}/replay", "/admin/outbox/dead-letters/"
                + Long.MAX_VALUE + "/replay", reason).statusCode()).isEqualTo(404);
        assertThat(admin("DELETE", "/admin/outbox/dead-letters/{id}", "/admin/outbox/dead-letters/" + Long.MAX_VALUE,
                null).statusCode()).isEqualTo(404);
        assertThat(admin("DELETE", "/admin/outbox/dead-letters/{id}", "/admin/outbox/dead-letters/first", null)
                .statusCode()).isEqualTo(400);
        HttpResponse<String> topics = admin("GET", "/admin/kafka/dead-letters", "/admin/kafka/dead-letters", null);
        assertThat(topics.statusCode()).isEqualTo(200);
        for (var topic : TestProduct.read(topics.body()).get("topics")) {
            assertThat(admin("GET", "/admin/kafka/dead-letters", "/admin/kafka/dead-letters?limit=3&topic="
                    + topic.get("topic").asText(), null).statusCode()).isEqualTo(200);
        }
        assertThat(admin("GET", "/admin/kafka/dead-letters", "/admin/kafka/dead-letters?topic=no-such-topic", null)
                .statusCode()).isEqualTo(404);
        String redrive = "/admin/kafka/dead-letters/redrive";
        assertThat(admin("POST", redrive, redrive, "{\"topic\":\"payments.commands\",\"partition\":0,\"offset\":"
                + Long.MAX_VALUE + "}").statusCode()).isEqualTo(404);
        assertThat(admin("POST", redrive, redrive, "{\"topic\":\"payments.commands\"}").statusCode()).isEqualTo(400);
        // Audit and findings
        assertThat(admin("GET", "/admin/audit", "/admin/audit?limit=2&target=" + parked1, null).statusCode())
                .isEqualTo(200);
        assertThat(admin("GET", "/admin/audit", "/admin/audit?limit=0", null).statusCode()).isEqualTo(400);
        String findings = "/admin/reconciliation/findings";
        assertThat(admin("GET", findings, findings + "?limit=5", null).statusCode()).isEqualTo(200);
        assertThat(admin("GET", findings, findings + "?kind=LOST_PARCEL", null).statusCode()).isEqualTo(400);
        assertThat(admin("GET", "/admin/overview", "/admin/overview", null).statusCode()).isEqualTo(200);
        assertThat(parked3).isNotNull();
    }

    @Test
    @Order(5)
    void shouldAnswerTheConsolePagesAsTheContractSays() {
        product.ensure(AdminHttp.SETTINGS);
        ADMIN.check("GET", "/console/", send("GET", product.admin("/console/"), null));
        for (String asset : List.of("/console/console.js", "/console/console.css", "/console/favicon.svg")) {
            HttpResponse<String> r = send("GET", product.admin(asset), null);
            ADMIN.check("GET", asset, r);
            assertThat(r.statusCode()).as(asset).isEqualTo(200);
        }
        HttpResponse<String> wrong = form("/console/login", "token=not-a-token");
        ADMIN.check("POST", "/console/login", wrong);
        assertThat(wrong.statusCode()).isEqualTo(401);
        HttpResponse<String> in = form("/console/login", "token=" + TestProduct.OPERATOR_TOKEN);
        ADMIN.check("POST", "/console/login", in);
        assertThat(in.statusCode()).isEqualTo(303);
        String cookie = in.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        HttpResponse<String> whoami = send("GET", product.admin("/admin/whoami"), null, "Cookie", cookie,
                "X-Sagas-Console", "1");
        ADMIN.check("GET", "/admin/whoami", whoami);
        assertThat(whoami.statusCode()).isEqualTo(200);
        HttpResponse<String> out = form("/console/logout", "");
        ADMIN.check("POST", "/console/logout", out);
        assertThat(out.statusCode()).isEqualTo(303);
    }

    @Test
    @Order(6)
    void shouldAnswerTheSandboxInventoryAsItsContractSays() {
        product.ensure(AdminHttp.SETTINGS);
        String sku = Submissions.sku();
        String order = "contract-" + UUID.randomUUID();
        String key = "contract-reserve-" + UUID.randomUUID();
        assertThat(inventory("PUT", "/stock/{sku}", "/stock/" + sku, "{\"available\":5}").statusCode()).isEqualTo(200);
        assertThat(inventory("PUT", "/stock/{sku}", "/stock/" + sku, "{\"available\":-1}").statusCode())
                .isEqualTo(400);
        assertThat(inventory("GET", "/stock/{sku}", "/stock/" + sku, null).statusCode()).isEqualTo(200);
        String reserve = "{\"orderId\":\"" + order + "\",\"lines\":[{\"sku\":\"" + sku + "\",\"quantity\":2}]}";
        assertThat(inventory("POST", "/reservations", "/reservations", reserve, "Idempotency-Key", key).statusCode())
                .isEqualTo(200);
        assertThat(inventory("POST", "/reservations", "/reservations", reserve).statusCode()).isEqualTo(400);
        assertThat(inventory("POST", "/reservations", "/reservations", reserve, "Idempotency-Key", key + "-late",
                "X-Deadline", "1").statusCode()).isEqualTo(504);
        assertThat(inventory("GET", "/reservations", "/reservations?orderId=" + order, null).statusCode())
                .isEqualTo(200);
        assertThat(inventory("GET", "/reservations", "/reservations?since=&limit=5", null).statusCode())
                .isEqualTo(200);
        assertThat(inventory("GET", "/reservations", "/reservations?since=yesterday", null).statusCode())
                .isEqualTo(400);
        assertThat(inventory("GET", "/reservations/{key}", "/reservations/" + key, null).statusCode()).isEqualTo(200);
        assertThat(inventory("GET", "/reservations/{key}", "/reservations/no-such-key", null).statusCode())
                .isEqualTo(404);
        assertThat(inventory("PUT", "/_faults", "/_faults", "{\"down\":true}").statusCode()).isEqualTo(200);
        assertThat(inventory("POST", "/reservations/{key}/release", "/reservations/" + key + "/release",
                "{\"orderId\":\"" + order + "\"}", "Idempotency-Key", key + ":release").statusCode()).isEqualTo(503);
        assertThat(inventory("PUT", "/_faults", "/_faults", "{\"down\":false}").statusCode()).isEqualTo(200);
        assertThat(inventory("POST", "/reservations/{key}/release", "/reservations/" + key + "/release",
                "{\"orderId\":\"" + order + "\"}", "Idempotency-Key", key + ":release").statusCode()).isEqualTo(200);
        assertThat(inventory("PUT", "/_faults", "/_faults", "{\"slow\":true}").statusCode()).isEqualTo(400);
        assertThat(inventory("GET", "/_faults", "/_faults", null).statusCode()).isEqualTo(200);
    }

    @Test
    @Order(7)
    void shouldAnswerTheSandboxPaymentProviderAsItsContractSays() {
        product.ensure(AdminHttp.SETTINGS);
        String order = "contract-" + UUID.randomUUID();
        String key = "contract-charge-" + UUID.randomUUID();
        String charge = "{\"orderId\":\"" + order + "\",\"amountCents\":100,\"currency\":\"EUR\"}";
        assertThat(payment("POST", "/charges", "/charges", charge, "Idempotency-Key", key).statusCode()).isEqualTo(200);
        assertThat(payment("POST", "/charges", "/charges", "{\"orderId\":\"" + order + "\"}", "Idempotency-Key",
                key + "-2").statusCode()).isEqualTo(400);
        assertThat(payment("GET", "/charges/{key}", "/charges/" + key, null).statusCode()).isEqualTo(200);
        assertThat(payment("GET", "/charges/{key}", "/charges/no-such-charge", null).statusCode()).isEqualTo(404);
        assertThat(payment("GET", "/charges", "/charges?orderId=" + order, null).statusCode()).isEqualTo(200);
        assertThat(payment("GET", "/charges", "/charges?since=&limit=5", null).statusCode()).isEqualTo(200);
        assertThat(payment("GET", "/charges", "/charges?since=&limit=0", null).statusCode()).isEqualTo(400);
        assertThat(payment("PUT", "/_faults", "/_faults", "{\"down\":true}").statusCode()).isEqualTo(200);
        assertThat(payment("POST", "/refunds", "/refunds", "{\"chargeKey\":\"" + key + "\"}", "Idempotency-Key",
                key + ":refund").statusCode()).isEqualTo(503);
        assertThat(payment("PUT", "/_faults", "/_faults", "{\"down\":false}").statusCode()).isEqualTo(200);
        assertThat(payment("POST", "/refunds", "/refunds", "{\"chargeKey\":\"" + key + "\"}", "Idempotency-Key",
                key + ":refund").statusCode()).isEqualTo(200);
        assertThat(payment("POST", "/refunds", "/refunds", "{\"chargeKey\":\"no-such-charge\"}", "Idempotency-Key",
                key + ":refund-2").statusCode()).isEqualTo(404);
        assertThat(payment("GET", "/_faults", "/_faults", null).statusCode()).isEqualTo(200);
        String traced = "contract-traced-" + UUID.randomUUID();
        assertThat(payment("POST", "/charges", "/charges", charge, "Idempotency-Key", traced, "traceparent",
                "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01").statusCode()).isEqualTo(200);
        assertThat(payment("GET", "/_traceparents/{key}", "/_traceparents/" + traced, null).statusCode())
                .isEqualTo(200);
        assertThat(payment("GET", "/_traceparents/{key}", "/_traceparents/" + key, null).statusCode())
                .isEqualTo(404);
    }

    @Test
    @Order(99)
    void shouldHaveExercisedEveryDocumentedOperation() {
        assertThat(PUBLIC.unchecked()).as("public operations no test called").isEmpty();
        assertThat(ADMIN.unchecked()).as("operator operations no test called").isEmpty();
        assertThat(OPS.unchecked()).as("ops operations no test called").isEmpty();
        assertThat(INVENTORY.unchecked()).as("inventory operations no test called").isEmpty();
        assertThat(PAYMENT.unchecked()).as("payment operations no test called").isEmpty();
    }

    private static HttpResponse<String> inventory(String method, String template, String path, String json,
            String... headers) {
        HttpResponse<String> r = send(method, product.inventory(path), json, withLedgerToken(withJson(json, headers)));
        INVENTORY.check(method, template, json, r);
        return r;
    }

    private static HttpResponse<String> payment(String method, String template, String path, String json,
            String... headers) {
        HttpResponse<String> r = send(method, product.payments(path), json, withLedgerToken(withJson(json, headers)));
        PAYMENT.check(method, template, json, r);
        return r;
    }

    /** The sandboxes' calls carry the ledger token (the ledgers ask for it; the rest ignores it). */
    private static String[] withLedgerToken(String... headers) {
        String[] all = java.util.Arrays.copyOf(headers, headers.length + 2);
        all[headers.length] = "Authorization";
        all[headers.length + 1] = "Bearer " + TestProduct.LEDGER_TOKEN;
        return all;
    }

    private static String[] withJson(String json, String... headers) {
        if (json == null) {
            return headers;
        }
        String[] all = java.util.Arrays.copyOf(headers, headers.length + 2);
        all[headers.length] = "Content-Type";
        all[headers.length + 1] = "application/json";
        return all;
    }

    private static com.fasterxml.jackson.databind.JsonNode served(OpenApiContract contract, URI uri) {
        HttpResponse<String> r = send("GET", uri, null);
        contract.check("GET", "/openapi.json", r);
        return TestProduct.read(r.body());
    }

    /** {@code POST /orders}, checked against the public document. */
    private static HttpResponse<String> submit(String key, String body, String... headers) {
        HttpResponse<String> r = product.submit(key, body, headers);
        PUBLIC.check("POST", "/orders", body, r);
        return r;
    }

    /** {@code POST /orders/{id}/cancel} under {@code key} (null: none), checked against the public document. */
    private static HttpResponse<String> cancel(String id, String key, String... headers) {
        String[] all = key == null ? headers : withHeader(headers, "Idempotency-Key", key);
        HttpResponse<String> r = send("POST", product.api("/orders/" + id + "/cancel"), null, all);
        PUBLIC.check("POST", "/orders/{id}/cancel", r);
        return r;
    }

    private static String[] withHeader(String[] headers, String name, String value) {
        String[] all = java.util.Arrays.copyOf(headers, headers.length + 2);
        all[headers.length] = name;
        all[headers.length + 1] = value;
        return all;
    }

    private static HttpResponse<String> get(OpenApiContract contract, String template, URI uri) {
        HttpResponse<String> r = send("GET", uri, null);
        contract.check("GET", template, r);
        return r;
    }

    private static HttpResponse<String> admin(String method, String template, String path, String json) {
        return admin(method, template, path, json, TestProduct.OPERATOR_TOKEN);
    }

    /** An operator API call with {@code token} (null: none), checked against the operator document. */
    private static HttpResponse<String> admin(String method, String template, String path, String json,
            String token) {
        HttpResponse<String> r = new AdminHttp(product, token).send(method, product.admin(path), json);
        ADMIN.check(method, template, json, r);
        return r;
    }

    private static HttpResponse<String> form(String path, String body) {
        return product.send(HttpRequest.newBuilder(product.admin(path)).timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private static HttpResponse<String> send(String method, URI uri, String json, String... headers) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30)).method(method,
                json == null ? HttpRequest.BodyPublishers.noBody() : HttpRequest.BodyPublishers.ofString(json));
        for (int i = 0; i + 1 < headers.length; i += 2) {
            b.header(headers[i], headers[i + 1]);
        }
        return product.send(b.build());
    }

    /**
     * Claims {@code key} for {@code body} as a first request that has not answered yet does: a
     * second request with the same key and body must then hear 409, never a guess.
     */
    private static void claimInFlight(String key, String body) {
        var request = OrderRequestParser.parse(body.getBytes(java.nio.charset.StandardCharsets.UTF_8));
        // On this open API the client is the order's customer.
        product.product().node().jdbi.useHandle(h -> h.createUpdate("INSERT INTO idempotency_keys (client_scope,"
                        + " idem_key, request_hash, state, expires_at) VALUES (:scope, :key, :hash, 'IN_FLIGHT', :expires)")
                .bind("scope", OrderService.customerClient(request.customerId())).bind("key", key)
                .bind("hash", request.hash()).bind("expires", Instant.now().plusSeconds(3600)).execute());
    }
}
