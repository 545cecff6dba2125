package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Who may use the operator API (docs/operations-admin.md, "Access"; docs/security.md): its own listener,
 * nothing of it on the public port, a token for everything, an operator's for writes, no writes
 * at all when read-only; refusals as problem+json, refused writes audited.
 */
@RealInfrastructure
class AdminAccessIT {
    private static TestProduct product;

    @BeforeAll
    static void start(TestInfra infra) {
        product = TestProduct.shared(infra);
    }

    @BeforeEach
    void defaultSettings() {
        product.defaults();
    }

    @AfterAll
    static void back() {
        product.defaults();
    }

    @Test
    void shouldAnswer404ForEveryOperatorPathOnThePublicPort() {
        // Given the operator paths, with a valid operator token
        AdminHttp onPublicPort = AdminHttp.operator(product);
        UUID id = UUID.randomUUID();

        // When they are asked on the public API's port
        List<HttpResponse<String>> answers = List.of(
                onPublicPort.send("GET", product.api("/admin/sagas"), null),
                onPublicPort.send("GET", product.api("/admin/sagas/" + id), null),
                onPublicPort.send("POST", product.api("/admin/sagas/" + id + "/retry"), "{}"),
                onPublicPort.send("GET", product.api("/admin/outbox/dead-letters"), null),
                onPublicPort.send("POST", product.api("/admin/outbox/dead-letters/1/replay"), null),
                onPublicPort.send("DELETE", product.api("/admin/outbox/dead-letters/1"), null),
                onPublicPort.send("GET", product.api("/admin/audit"), null),
                onPublicPort.send("GET", product.api("/console/"), null));

        // Then none is there
        assertThat(answers).allSatisfy(r -> assertProblem(r, 404));
        // And the operator API answers them on its own port
        assertThat(onPublicPort.get("/admin/sagas").statusCode()).isEqualTo(200);
    }

    @Test
    void shouldRefuseEveryRequestWithoutAValidTokenWith401() {
        UUID id = UUID.randomUUID();
        List<HttpResponse<String>> answers = List.of(
                new AdminHttp(product, null).get("/admin/sagas"),
                new AdminHttp(product, "wrong").get("/admin/sagas"),
                new AdminHttp(product, TestProduct.OPERATOR_TOKEN + "x").get("/admin/sagas"),
                new AdminHttp(product, TestProduct.OPERATOR_TOKEN.substring(1)).get("/admin/audit"),
                new AdminHttp(product, null).post("/admin/sagas/" + id + "/cancel", "{}"),
                new AdminHttp(product, "wrong").get("/admin/no/such/path"),
                product.send(java.net.http.HttpRequest.newBuilder(product.admin("/admin/sagas"))
                        .header("Authorization", "Basic " + TestProduct.OPERATOR_TOKEN).GET().build()));

        assertThat(answers).allSatisfy(r -> {
            assertProblem(r, 401);
            assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(
                    v -> assertThat(v).startsWith("Bearer"));
        });
    }

    @Test
    void shouldLetEveryTokenReadAndOnlyAnOperatorsWrite() {
        // Given an order that has ended, and the three tokens of the tests
        String sku = Submissions.sku();
        product.stock(sku, 0);
        UUID rejected = TestProduct.orderId(product.submit(Submissions.key(), TestProduct.order("c-acl", sku, 1, 5)));
        AdminHttp viewer = new AdminHttp(product, TestProduct.VIEWER_TOKEN);
        AdminHttp olga = new AdminHttp(product, TestProduct.OLGA_TOKEN);

        // When the viewer reads and writes, and the operator writes
        HttpResponse<String> viewerRead = viewer.get("/admin/sagas/" + rejected);
        HttpResponse<String> viewerWrite = viewer.post("/admin/sagas/" + rejected + "/cancel",
                AdminHttp.reason("viewer tries"));
        HttpResponse<String> operatorWrite = olga.post("/admin/sagas/" + rejected + "/cancel",
                AdminHttp.reason("operator tries"));

        // Then the viewer reads, its write is forbidden, the operator's reaches the saga (ended: 409)
        assertThat(viewerRead.statusCode()).isEqualTo(200);
        assertProblem(viewerWrite, 403);
        assertThat(TestProduct.read(viewerWrite.body()).path("detail").asText()).contains("victor", "viewer");
        assertProblem(operatorWrite, 409);
        assertThat(viewer.getJson("/admin/whoami").path("mayWrite").asBoolean()).isFalse();
        assertThat(olga.getJson("/admin/whoami").path("name").asText()).isEqualTo("olga");
        // And both writes are in the audit, with who and what became of them
        JsonNode audit = viewer.auditOf(rejected.toString());
        assertThat(audit.findValuesAsText("actor")).containsExactly("olga", "victor");
        assertThat(audit.findValuesAsText("outcome")).containsExactly("REFUSED", "FORBIDDEN");
        assertThat(audit.findValuesAsText("role")).containsExactly("operator", "viewer");
        assertThat(audit.get(0).path("reason").asText()).isEqualTo("operator tries");
    }

    @Test
    void shouldRefuseEveryWriteWhenReadOnly() {
        // Given a read-only operator API and an open order
        product.ensure(Map.of("SAGA_ADMIN_READ_ONLY", "true"));
        AdminHttp admin = AdminHttp.operator(product);
        UUID id = UUID.randomUUID();

        // When the operator tries every write
        List<HttpResponse<String>> writes = List.of(
                admin.post("/admin/sagas/" + id + "/retry", "{}"),
                admin.post("/admin/sagas/" + id + "/cancel", "{}"),
                admin.post("/admin/sagas/" + id + "/payment-outcome", "{\"outcome\":\"CAPTURED\"}"),
                admin.post("/admin/batches", "{\"action\":\"retry\",\"filter\":{\"status\":\"PENDING_CONFIRMATION\"}}"),
                admin.post("/admin/batches/" + id + "/stop", "{}"),
                admin.post("/admin/outbox/dead-letters/1/replay", null),
                admin.delete("/admin/outbox/dead-letters/1"),
                admin.post("/admin/kafka/dead-letters/redrive", "{\"topic\":\"x\",\"partition\":0,\"offset\":0}"));

        // Then each is forbidden, while reads and a dry run (which writes nothing) still answer
        assertThat(writes).allSatisfy(r -> {
            assertProblem(r, 403);
            assertThat(TestProduct.read(r.body()).path("type").asText()).isEqualTo("/problems/read-only");
        });
        assertThat(admin.get("/admin/sagas").statusCode()).isEqualTo(200);
        assertThat(admin.post("/admin/batches", "{\"action\":\"retry\",\"dryRun\":true,"
                + "\"filter\":{\"status\":\"PENDING_CONFIRMATION\"}}").statusCode()).isEqualTo(200);
        assertThat(admin.getJson("/admin/whoami").path("readOnly").asBoolean()).isTrue();
    }

    @Test
    void shouldSignIntoTheConsoleWithASessionKeptInAStrictHttpOnlyCookie() {
        // Given the console's login page, which needs no token to show
        HttpResponse<String> login = product.send(HttpRequest.newBuilder(product.admin("/console/")).GET().build());
        assertThat(login.statusCode()).isEqualTo(200);
        assertThat(login.body()).contains("<form method=\"post\" action=\"/console/login\"");

        // When a person signs in, with a wrong token and then a viewer's
        HttpResponse<String> wrong = form("/console/login", "token=nope");
        HttpResponse<String> right = form("/console/login", "token=" + TestProduct.VIEWER_TOKEN);

        // Then the wrong one is refused and the right one opens a session kept in an HttpOnly,
        // SameSite=Strict cookie for the API's paths (OperatorListenerIT checks the rest)
        assertThat(wrong.statusCode()).isEqualTo(401);
        assertThat(right.statusCode()).isEqualTo(303);
        String cookie = right.headers().allValues("Set-Cookie").stream().filter(c -> c.contains("Path=/admin;"))
                .findFirst().orElseThrow();
        assertThat(cookie).contains("HttpOnly", "SameSite=Strict");
        String value = cookie.substring(0, cookie.indexOf(';'));
        // And the console's calls carry it (with the console's header: a cross-site form could not)
        HttpResponse<String> withHeader = product.send(HttpRequest.newBuilder(product.admin("/admin/sagas"))
                .header("Cookie", value).header("X-Sagas-Console", "1").GET().build());
        HttpResponse<String> withoutHeader = product.send(HttpRequest.newBuilder(product.admin("/admin/sagas"))
                .header("Cookie", value).GET().build());
        HttpResponse<String> viewerWrite = product.send(HttpRequest.newBuilder(
                product.admin("/admin/sagas/" + UUID.randomUUID() + "/retry")).header("Cookie", value)
                .header("X-Sagas-Console", "1").POST(HttpRequest.BodyPublishers.noBody()).build());
        assertThat(withHeader.statusCode()).isEqualTo(200);
        assertProblem(withoutHeader, 401);
        assertProblem(viewerWrite, 403);
        HttpResponse<String> page = product.send(HttpRequest.newBuilder(product.admin("/console/"))
                .header("Cookie", value).GET().build());
        // And with the cookie the console itself is served, whose script sends that header on every call
        assertThat(page.body()).contains("/console/console.js", "/console/logout");
        assertThat(product.send(HttpRequest.newBuilder(product.admin("/console/console.js")).GET().build()).body())
                .contains("/admin/sagas", "X-Sagas-Console");
    }

    private static HttpResponse<String> form(String path, String body) {
        return product.send(HttpRequest.newBuilder(product.admin(path))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    static void assertProblem(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).as("%s %s: %s", r.request().method(), r.uri(), r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(TestProduct.read(r.body()).get("status").asInt()).isEqualTo(status);
    }
}
