package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;
import org.sagas.testkit.fuzz.Choices;
import org.sagas.testkit.fuzz.FuzzClient;
import org.sagas.testkit.fuzz.HostileRequest;
import org.sagas.testkit.fuzz.HostileRequests;
import org.sagas.testkit.InfrastructureExtension;
import org.sagas.testkit.TestInfra;

/**
 * Hostile bodies, headers and paths, generated from numbers jqwik draws (and shrinks towards the
 * plainest choice when a case fails): each is answered with a 4xx, read by a client that wrote
 * the whole request first, and nothing is stored; the service answers and takes orders after.
 * A fixed seed keeps CI repeatable; {@code ./sagas fuzz --seconds N} runs longer with any seed.
 */
class ApiFuzzIT {
    private static TestInfra infra;
    private static TestProduct product;

    @BeforeContainer
    static void start() {
        infra = InfrastructureExtension.forTestClass(ApiFuzzIT.class);
        product = TestProduct.shared(infra);
    }

    @AfterContainer
    static void healthyAfter() {
        assertThat(product.send(java.net.http.HttpRequest.newBuilder(product.api("/health/live"))
                .timeout(Duration.ofSeconds(5)).GET().build()).statusCode()).isEqualTo(200);
        String sku = "SKU-FUZZ-" + java.util.UUID.randomUUID().toString().substring(0, 6);
        product.stock(sku, 1);
        assertThat(product.submit("key-" + java.util.UUID.randomUUID(), TestProduct.order("c-after-fuzz", sku, 1, 100))
                .statusCode()).isEqualTo(202);
        infra.close();
    }

    @Property(tries = 300, seed = "160016", shrinking = ShrinkingMode.BOUNDED)
    void shouldRefuseEveryHostileRequestWithA4xxAndStoreNothing(
            @ForAll @Size(min = 4, max = 6) List<@IntRange(min = 0, max = 100_000) Integer> choices) {
        HostileRequest request = HostileRequests.next(Choices.of(choices), null);
        long before = orders();

        FuzzClient.Outcome outcome = FuzzClient.send("127.0.0.1", product.product().apiPort(), request,
                Duration.ofSeconds(10));

        assertThat(outcome.refusedProperly()).as("%s → %s %s", request, outcome.status(), outcome.failure()).isTrue();
        assertThat(orders()).as("orders stored for %s", request).isEqualTo(before);
    }

    private static long orders() {
        return product.product().node().jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM orders")
                .mapTo(Long.class).one());
    }
}
