package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** Fair share: one client's rate and its share of pending confirmations are bounded; others go on. */
@RealInfrastructure
class ClientQuotasIT {
    private static final Map<String, String> QUOTAS = Map.of("SAGA_CLIENT_RATE", "1", "SAGA_CLIENT_BURST", "4",
            "SAGA_CLIENT_PENDING_CAP", "3");
    private TestProduct product;

    @BeforeEach
    void start(TestInfra infra) {
        product = TestProduct.shared(infra);
        product.ensure(QUOTAS);
    }

    @AfterAll
    static void defaults() {
        if (TestProduct.sharedIfStarted() != null) {
            TestProduct.sharedIfStarted().defaults();
        }
    }

    @Test
    void shouldAnswer429WithRetryAfterOnceAClientSpendsItsBurstWhileOthersGoOn() {
        String sku = sku(0);
        long before = orders();
        List<HttpResponse<String>> answers = new ArrayList<>();

        for (int i = 0; i < 6; i++) {
            answers.add(product.submit("key-" + UUID.randomUUID(), TestProduct.order("c-greedy-rate", sku, 1, 100)));
        }
        HttpResponse<String> other = product.submit("key-" + UUID.randomUUID(),
                TestProduct.order("c-modest-rate", sku, 1, 100));

        assertThat(answers.subList(0, 4)).allSatisfy(r -> assertThat(r.statusCode()).as(r.body()).isEqualTo(422));
        HttpResponse<String> limited = answers.get(5);
        ApiKeysIT.assertProblem(limited, 429);
        assertThat(limited.headers().firstValue("Retry-After")).hasValueSatisfying(
                v -> assertThat(Long.parseLong(v)).isBetween(1L, 2L));
        assertThat(other.statusCode()).as(other.body()).isEqualTo(422);
        // the 4 in the burst and the other client's order, and nothing for the refused ones
        assertThat(orders() - before).isBetween(5L, 6L);
    }

    @Test
    void shouldNotThrottleAKeyWithItsOwnHigherRateWhereADefaultKeyIsThrottled() throws IOException {
        // Given a key with the defaults (burst 4, 1/s) and one whose line gives it a rate and burst of its own
        String ordinary = "ordinary-key-" + UUID.randomUUID();
        String shop = "shop-key-" + UUID.randomUUID();
        Path keys = Files.createTempFile("api-keys-quotas", ".txt");
        try {
            Files.writeString(keys, ordinary + " c-ordinary\n" + shop + " c-shop rate=1000 burst=1000\n");
            Map<String, String> settings = new HashMap<>(QUOTAS);
            settings.put("SAGA_API_KEYS_FILE", keys.toString());
            product.ensure(settings);
            String sku = sku(0);

            // When each sends more than the default burst at once
            List<HttpResponse<String>> ordinaryAnswers = new ArrayList<>();
            List<HttpResponse<String>> shopAnswers = new ArrayList<>();
            for (int i = 0; i < 6; i++) {
                ordinaryAnswers.add(submit(ordinary, "c-ordinary", sku));
            }
            for (int i = 0; i < 12; i++) {
                shopAnswers.add(submit(shop, "c-shop", sku));
            }

            // Then the default key is told to slow down, and the shop is not
            ApiKeysIT.assertProblem(ordinaryAnswers.get(5), 429);
            assertThat(shopAnswers).allSatisfy(r -> assertThat(r.statusCode()).as(r.body()).isNotEqualTo(429));
        } finally {
            product.ensure(QUOTAS);
            Files.deleteIfExists(keys);
        }
    }

    private HttpResponse<String> submit(String apiKey, String customer, String sku) {
        return product.submit("key-" + UUID.randomUUID(), TestProduct.order(customer, sku, 1, 100), "Authorization",
                "Bearer " + apiKey);
    }

    @Test
    void shouldRefuseAClientsOrdersPastItsShareOfPendingWhileOtherClientsAreStillAccepted() {
        String sku = sku(100);
        try {
            // Given inventory down: every order is accepted as PENDING_CONFIRMATION
            product.inventoryFaults("{\"down\":true}");
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> r = product.submitWithinApiBudget("key-" + UUID.randomUUID(),
                        TestProduct.order("c-greedy-pending", sku, 1, 100));
                assertThat(r.statusCode()).as(r.body()).isEqualTo(202);
                assertThat(TestProduct.read(r.body()).get("status").asText()).isEqualTo("PENDING_CONFIRMATION");
            }
            await().atMost(Duration.ofSeconds(10)).until(() -> product.metrics().value("saga_orders", "status",
                    "PENDING_CONFIRMATION") >= 3);

            // When the same client sends a fourth, and another client its first
            HttpResponse<String> fourth = product.submitWithinApiBudget("key-" + UUID.randomUUID(),
                    TestProduct.order("c-greedy-pending", sku, 1, 100));
            HttpResponse<String> other = product.submitWithinApiBudget("key-" + UUID.randomUUID(),
                    TestProduct.order("c-modest-pending", sku, 1, 100));

            // Then the greedy client is told to come back later, and the other is accepted
            ApiKeysIT.assertProblem(fourth, 429);
            assertThat(TestProduct.read(fourth.body()).get("type").asText()).endsWith("client-pending-cap");
            assertThat(fourth.headers().firstValue("Retry-After")).isPresent();
            assertThat(other.statusCode()).as(other.body()).isEqualTo(202);
        } finally {
            product.healthy();
        }
    }

    private String sku(int stock) {
        String sku = "SKU-Q" + UUID.randomUUID().toString().substring(0, 6);
        product.stock(sku, stock);
        return sku;
    }

    private long orders() {
        return product.product().node().jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM orders")
                .mapTo(Long.class).one());
    }
}
