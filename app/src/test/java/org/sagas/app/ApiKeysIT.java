package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** With a keys file, each key places and reads only its own customers' orders. */
@RealInfrastructure
class ApiKeysIT {
    private static final String ALICE = "alice-key-0123456789abcdef";
    private static final String BOB = "bob-key-0123456789abcdef01";
    private static Path keysFile;
    private TestProduct product;

    @BeforeEach
    void start(TestInfra infra) throws IOException {
        if (keysFile == null) {
            keysFile = Files.createTempFile("api-keys", ".txt");
            Files.writeString(keysFile, "# test keys\n" + ALICE + " c-alice,c-alice-2\n" + BOB + " c-bob priority\n");
        }
        product = TestProduct.shared(infra);
        product.ensure(Map.of("SAGA_API_KEYS_FILE", keysFile.toString()));
    }

    @AfterAll
    static void defaults() throws IOException {
        if (TestProduct.sharedIfStarted() != null) {
            TestProduct.sharedIfStarted().defaults();
        }
        Files.deleteIfExists(keysFile);
    }

    @Test
    void shouldAnswer401WithoutAKeyOrWithAnUnknownOneAndStoreNothing() {
        long before = orders();
        String body = TestProduct.order("c-alice", "SKU-K", 1, 100);

        HttpResponse<String> none = product.submit("key-" + UUID.randomUUID(), body);
        HttpResponse<String> unknown = product.submit("key-" + UUID.randomUUID(), body,
                "Authorization", "Bearer not-a-key");
        HttpResponse<String> notBearer = product.submit("key-" + UUID.randomUUID(), body,
                "Authorization", "Basic " + ALICE);
        HttpResponse<String> list = get("/orders", null);

        for (HttpResponse<String> r : java.util.List.of(none, unknown, notBearer, list)) {
            assertProblem(r, 401);
            assertThat(r.headers().firstValue("WWW-Authenticate")).hasValueSatisfying(v -> assertThat(v)
                    .startsWith("Bearer"));
        }
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldAnswer403ForAnOrderForAnotherCustomerAndStoreNothing() {
        long before = orders();

        HttpResponse<String> r = product.submit("key-" + UUID.randomUUID(), TestProduct.order("c-bob", "SKU-K", 1, 100),
                "Authorization", "Bearer " + ALICE);

        assertProblem(r, 403);
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldShowEachKeyOnlyItsOwnCustomersOrders() {
        String sku = "SKU-K" + UUID.randomUUID().toString().substring(0, 6);
        product.stock(sku, 0);
        UUID alices = TestProduct.orderId(product.submit("key-" + UUID.randomUUID(),
                TestProduct.order("c-alice-2", sku, 1, 100), "Authorization", "Bearer " + ALICE));
        UUID bobs = TestProduct.orderId(product.submit("key-" + UUID.randomUUID(),
                TestProduct.order("c-bob", sku, 1, 100), "Authorization", "Bearer " + BOB));

        JsonNode alicesList = TestProduct.read(get("/orders?limit=1000", ALICE).body());
        HttpResponse<String> bobsOrderForAlice = get("/orders/" + bobs, ALICE);
        HttpResponse<String> alicesOrderForAlice = get("/orders/" + alices, ALICE);
        HttpResponse<String> unknownForAlice = get("/orders/" + UUID.randomUUID(), ALICE);

        assertThat(alicesList.findValuesAsText("orderId")).contains(alices.toString()).doesNotContain(bobs.toString());
        assertThat(alicesList.findValuesAsText("customerId")).isSubsetOf("c-alice", "c-alice-2");
        // Someone else's order looks exactly like one that does not exist
        assertProblem(bobsOrderForAlice, 404);
        assertProblem(unknownForAlice, 404);
        assertThat(TestProduct.read(bobsOrderForAlice.body()).get("title"))
                .isEqualTo(TestProduct.read(unknownForAlice.body()).get("title"));
        assertThat(alicesOrderForAlice.statusCode()).isEqualTo(200);
    }

    private HttpResponse<String> get(String path, String key) {
        HttpRequest.Builder b = HttpRequest.newBuilder(product.api(path)).timeout(Duration.ofSeconds(10)).GET();
        if (key != null) {
            b.header("Authorization", "Bearer " + key);
        }
        return product.send(b.build());
    }

    private long orders() {
        return product.product().node().jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM orders")
                .mapTo(Long.class).one());
    }

    static void assertProblem(HttpResponse<String> r, int status) {
        assertThat(r.statusCode()).as(r.body()).isEqualTo(status);
        assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(
                v -> assertThat(v).startsWith("application/problem+json"));
        assertThat(TestProduct.read(r.body()).get("status").asInt()).isEqualTo(status);
    }
}
