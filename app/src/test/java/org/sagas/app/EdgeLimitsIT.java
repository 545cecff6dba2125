package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * Requests over a limit are answered with their 4xx as problem+json, and read far enough that a
 * client writing its whole request before reading gets that answer rather than a reset.
 */
@RealInfrastructure
class EdgeLimitsIT {
    private TestProduct product;

    @BeforeEach
    void start(TestInfra infra) {
        product = TestProduct.shared(infra);
    }

    @Test
    void shouldAnswer413ToAClientThatWritesAnOversizedBodyBeforeReading() {
        long before = orders();
        byte[] body = ("{\"customerId\":\"" + "x".repeat(300 * 1024) + "\"}").getBytes(StandardCharsets.UTF_8);

        RawHttp.Answer answer = RawHttp.exchange(product.product().apiPort(), RawHttp.request("POST /orders HTTP/1.1",
                body, "Content-Type: application/json", "Idempotency-Key: " + UUID.randomUUID()), Duration.ofSeconds(10));

        assertProblem(answer, 413);
        assertThat(answer.header("Connection")).isEqualTo("close");
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldAnswer413ToAnOversizedChunkedBody() {
        long before = orders();
        StringBuilder chunked = new StringBuilder();
        for (int i = 0; i < 20; i++) {
            chunked.append(Integer.toHexString(8192)).append("\r\n").append("y".repeat(8192)).append("\r\n");
        }
        chunked.append("0\r\n\r\n");

        RawHttp.Answer answer = RawHttp.exchange(product.product().apiPort(), RawHttp.request("POST /orders HTTP/1.1",
                chunked.toString().getBytes(StandardCharsets.ISO_8859_1), "Content-Type: application/json",
                "Transfer-Encoding: chunked", "Idempotency-Key: " + UUID.randomUUID()), Duration.ofSeconds(10));

        assertProblem(answer, 413);
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldAnswer431ForOversizedHeadersWithABodyWrittenBeforeReading() {
        long before = orders();
        byte[] body = TestProduct.order("c-edge", "SKU-E", 1, 100).getBytes(StandardCharsets.UTF_8);

        RawHttp.Answer answer = RawHttp.exchange(product.product().apiPort(), RawHttp.request("POST /orders HTTP/1.1",
                body, "Content-Type: application/json", "Idempotency-Key: " + UUID.randomUUID(),
                "X-Padding: " + "p".repeat(12 * 1024)), Duration.ofSeconds(10));

        assertProblem(answer, 431);
        assertThat(orders()).isEqualTo(before);
    }

    @Test
    void shouldAnswer414ForAnOversizedUri() {
        RawHttp.Answer answer = RawHttp.exchange(product.product().apiPort(),
                RawHttp.request("GET /orders/" + "a".repeat(10 * 1024) + " HTTP/1.1", new byte[0]),
                Duration.ofSeconds(10));

        assertThat(answer.status()).isBetween(414, 431);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
    }

    @Test
    void shouldAnswer408ToABodyThatStopsArriving() throws Exception {
        long before = orders();
        try (java.net.Socket socket = new java.net.Socket("127.0.0.1", product.product().apiPort())) {
            socket.setSoTimeout(10_000);
            byte[] head = ("POST /orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Idempotency-Key: " + UUID.randomUUID() + "\r\nContent-Length: 500\r\n\r\n{\"custo")
                    .getBytes(StandardCharsets.ISO_8859_1);
            socket.getOutputStream().write(head);
            socket.getOutputStream().flush();
            long start = System.nanoTime();

            RawHttp.Answer answer = RawHttp.read(socket.getInputStream());

            assertProblem(answer, 408);
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        }
        assertThat(orders()).isEqualTo(before);
    }

    private long orders() {
        return product.product().node().jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM orders")
                .mapTo(Long.class).one());
    }

    private static void assertProblem(RawHttp.Answer answer, int status) {
        assertThat(answer.status()).as("%s", answer).isEqualTo(status);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(TestProduct.read(answer.body()).get("status").asInt()).isEqualTo(status);
    }
}
