package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * An {@code Idempotency-Key} belongs to the client that sent it (its API key, or its customer on an
 * open API): another client using the same key gets an order of its own and learns nothing of the
 * first (docs/security.md).
 */
@RealInfrastructure
class IdempotencyScopeIT {
    private static final String SHOP_A = "shop-a-key-0123456789abcdef";
    private static final String SHOP_B = "shop-b-key-0123456789abcdef";
    private static Path keysFile;

    @BeforeAll
    static void keys() throws IOException {
        keysFile = Files.createTempFile("api-keys-scope", ".txt");
        Files.writeString(keysFile, SHOP_A + " c-shop-a\n" + SHOP_B + " c-shop-b\n");
    }

    @AfterAll
    static void defaults() throws IOException {
        if (TestProduct.sharedIfStarted() != null) {
            TestProduct.sharedIfStarted().defaults();
        }
        Files.deleteIfExists(keysFile);
    }

    @Test
    void shouldGiveTwoApiKeysUsingOneIdempotencyKeyAnOrderEach(TestInfra infra) {
        // Given two API keys, each for its own customer
        TestProduct product = TestProduct.shared(infra);
        product.ensure(Map.of("SAGA_API_KEYS_FILE", keysFile.toString()));
        String sku = sku(product);
        String key = "order-" + UUID.randomUUID();
        Client a = new Client(product, "Bearer " + SHOP_A, "c-shop-a");
        Client b = new Client(product, "Bearer " + SHOP_B, "c-shop-b");

        // When both send one Idempotency-Key, each replays it, and the first sends another body under it
        HttpResponse<String> aFirst = a.submit(key, sku, 1);
        HttpResponse<String> bFirst = b.submit(key, sku, 1);
        HttpResponse<String> aConflict = a.submit(key, sku, 2);
        HttpResponse<String> aReplay = a.submit(key, sku, 1);
        HttpResponse<String> bReplay = b.submit(key, sku, 1);

        // Then each has its own order, replays its own answer, and only its own conflict is refused
        assertOwnOrders(aFirst, bFirst, aReplay, bReplay, aConflict);
        assertThat(a.read(TestProduct.orderId(aFirst)).statusCode()).isEqualTo(200);
        assertThat(b.read(TestProduct.orderId(bFirst)).statusCode()).isEqualTo(200);
    }

    @Test
    void shouldGiveTwoCustomersUsingOneIdempotencyKeyAnOrderEachOnAnOpenApi(TestInfra infra) {
        // Given an open API (no keys file): each customer is a client
        TestProduct product = TestProduct.shared(infra);
        product.defaults();
        String sku = sku(product);
        String key = "order-" + UUID.randomUUID();
        Client first = new Client(product, null, "c-open-" + UUID.randomUUID().toString().substring(0, 8));
        Client second = new Client(product, null, "c-open-" + UUID.randomUUID().toString().substring(0, 8));

        HttpResponse<String> firstAnswer = first.submit(key, sku, 1);
        HttpResponse<String> secondAnswer = second.submit(key, sku, 1);
        HttpResponse<String> firstConflict = first.submit(key, sku, 2);
        HttpResponse<String> firstReplay = first.submit(key, sku, 1);
        HttpResponse<String> secondReplay = second.submit(key, sku, 1);

        assertOwnOrders(firstAnswer, secondAnswer, firstReplay, secondReplay, firstConflict);
    }

    private static void assertOwnOrders(HttpResponse<String> aFirst, HttpResponse<String> bFirst,
            HttpResponse<String> aReplay, HttpResponse<String> bReplay, HttpResponse<String> aConflict) {
        assertThat(aFirst.statusCode()).as(aFirst.body()).isEqualTo(202);
        // The second client's first use is a first use: accepted, not a replay, not a conflict
        assertThat(bFirst.statusCode()).as(bFirst.body()).isEqualTo(202);
        assertThat(bFirst.headers().firstValue("Idempotent-Replayed")).isEmpty();
        assertThat(TestProduct.orderId(bFirst)).isNotEqualTo(TestProduct.orderId(aFirst));
        assertThat(aReplay.statusCode()).isEqualTo(202);
        assertThat(aReplay.body()).isEqualTo(aFirst.body());
        assertThat(aReplay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        assertThat(bReplay.statusCode()).isEqualTo(202);
        assertThat(bReplay.body()).isEqualTo(bFirst.body());
        assertThat(bReplay.headers().firstValue("Idempotent-Replayed")).hasValue("true");
        ApiKeysIT.assertProblem(aConflict, 422);
    }

    private static String sku(TestProduct product) {
        String sku = "SKU-S" + UUID.randomUUID().toString().substring(0, 6);
        product.stock(sku, 100);
        return sku;
    }

    /** One client: its Authorization header (null on an open API) and its customer. */
    private record Client(TestProduct product, String authorization, String customer) {
        HttpResponse<String> submit(String key, String sku, int quantity) {
            String body = TestProduct.order(customer, sku, quantity, 100);
            return authorization == null ? product.submit(key, body)
                    : product.submit(key, body, "Authorization", authorization);
        }

        HttpResponse<String> read(UUID orderId) {
            HttpRequest.Builder b = HttpRequest.newBuilder(product.api("/orders/" + orderId))
                    .timeout(Duration.ofSeconds(10)).GET();
            if (authorization != null) {
                b.header("Authorization", authorization);
            }
            return product.send(b.build());
        }
    }
}
