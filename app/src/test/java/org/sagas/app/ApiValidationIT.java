package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** Bad input gets a clear error naming the field, and changes nothing. */
@RealInfrastructure
class ApiValidationIT {
    private static final String LINE = "{\"sku\":\"SKU-V\",\"quantity\":1,\"unitPriceCents\":100}";
    private TestProduct product;

    @BeforeEach
    void start(TestInfra infra) {
        product = TestProduct.shared(infra);
    }

    @ParameterizedTest(name = "{1}")
    @CsvSource(delimiter = '|', value = {
        "{\"customerId\":\"\",\"currency\":\"EUR\",\"lines\":[LINE]}|customerId",
        "{\"customerId\":\"c\",\"currency\":\"eur\",\"lines\":[LINE]}|currency",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[]}|lines",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"\",\"quantity\":1,\"unitPriceCents\":1}]}|lines[0].sku",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":10001,\"unitPriceCents\":1}]}|lines[0].quantity",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":1,\"unitPriceCents\":1000000001}]}|lines[0].unitPriceCents",
        "{\"customerId\":\"c\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"s\",\"quantity\":\"1\",\"unitPriceCents\":1}]}|lines[0].quantity",
        "{\"customerId\":\"c\",\"currency\":|body",
    })
    void shouldAnswer400NamingTheFieldAndStoreNothing(String body, String field) {
        long before = orders();

        HttpResponse<String> r = product.submit("key-" + UUID.randomUUID(), body.replace("LINE", LINE));

        assertProblem(r, 400);
        assertThat(TestProduct.read(r.body()).get("field").asText()).isEqualTo(field);
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldRequireAnIdempotencyKeyOfAtMost255Characters() {
        String body = TestProduct.order("c", "SKU-V", 1, 100);
        long before = orders();

        HttpResponse<String> missing = product.submit(null, body);
        HttpResponse<String> tooLong = product.submit("k".repeat(256), body);

        assertProblem(missing, 400);
        assertThat(TestProduct.read(missing.body()).get("field").asText()).isEqualTo("Idempotency-Key");
        assertProblem(tooLong, 400);
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldAnswer413ForABodyOver64KiB() {
        long before = orders();
        String huge = "{\"customerId\":\"" + "x".repeat(70 * 1024) + "\"}";

        HttpResponse<String> r = product.submit("key-" + UUID.randomUUID(), huge);

        assertThat(r.statusCode()).isEqualTo(413);
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldRefuseAPassedDeadlineAndAnUnknownPriorityBeforeAnyWork() {
        long before = orders();
        String body = TestProduct.order("c", "SKU-V", 1, 100);

        HttpResponse<String> late = product.submit("key-" + UUID.randomUUID(), body, "X-Deadline",
                Long.toString(System.currentTimeMillis() - 1000));
        HttpResponse<String> badDeadline = product.submit("key-" + UUID.randomUUID(), body, "X-Deadline", "soon");
        HttpResponse<String> badPriority = product.submit("key-" + UUID.randomUUID(), body, "X-Priority", "urgent");

        assertProblem(late, 503);
        assertThat(late.headers().firstValue("Retry-After")).isPresent();
        assertProblem(badDeadline, 400);
        assertProblem(badPriority, 400);
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldAnswer404ForAnUnknownOrderAnd400ForABadQuery() {
        HttpResponse<String> unknown = product.send(HttpRequest.newBuilder(product.api("/orders/" + UUID.randomUUID()))
                .timeout(Duration.ofSeconds(5)).GET().build());
        HttpResponse<String> notAnId = product.send(HttpRequest.newBuilder(product.api("/orders/nope"))
                .timeout(Duration.ofSeconds(5)).GET().build());
        HttpResponse<String> badStatus = product.send(HttpRequest.newBuilder(product.api("/orders?status=LOST"))
                .timeout(Duration.ofSeconds(5)).GET().build());
        HttpResponse<String> badLimit = product.send(HttpRequest.newBuilder(product.api("/orders?limit=0"))
                .timeout(Duration.ofSeconds(5)).GET().build());

        assertProblem(unknown, 404);
        assertProblem(notAnId, 400);
        assertProblem(badStatus, 400);
        assertProblem(badLimit, 400);
    }

    @Test
    void shouldListOrdersNewestFirstFilteredByStatus() {
        String sku = "SKU-L" + UUID.randomUUID().toString().substring(0, 6);
        product.stock(sku, 0);
        UUID first = TestProduct.orderId(product.submit("key-" + UUID.randomUUID(), TestProduct.order("c-l", sku, 1, 1)));
        UUID second = TestProduct.orderId(product.submit("key-" + UUID.randomUUID(), TestProduct.order("c-l", sku, 1, 1)));

        JsonNode rejected = product.get(product.api("/orders?status=REJECTED&limit=2"));

        assertThat(rejected.findValuesAsText("orderId")).containsExactly(second.toString(), first.toString());
        assertThat(rejected.findValuesAsText("status")).containsOnly("REJECTED");
    }

    private long orders() {
        return product.product().node().jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM orders")
                .mapTo(Long.class).one());
    }

    private static void assertProblem(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(TestProduct.read(r.body()).get("status").asInt()).isEqualTo(status);
    }
}
