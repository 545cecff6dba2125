package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/**
 * The operator listener's own protection (docs/security.md, "The operator listener"): the
 * console's cookie holds a server-side session, never the token; signing out ends that session;
 * failed sign-ins and {@code 401}s from one address are throttled; a client sending its body
 * slowly is cut off by the same edge limits as on the public API.
 */
@RealInfrastructure
class OperatorListenerIT {
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
    void shouldCutOffClientsSendingTheirBodySlowlyOnTheOperatorPort() throws Exception {
        // Given a few clients that send their request's headers and then a trickle of its body
        int port = product.product().adminPort();
        List<Socket> slow = new ArrayList<>();
        try {
            for (int i = 0; i < 4; i++) {
                slow.add(trickle(port));
            }
            long start = System.nanoTime();

            // When they go on sending nothing more, while an operator uses the API
            List<CompletableFuture<RawHttp.Answer>> answers = slow.stream()
                    .map(s -> CompletableFuture.supplyAsync(() -> read(s))).toList();
            HttpResponse<String> meanwhile = AdminHttp.operator(product).get("/admin/whoami");

            // Then each slow client is answered 408 within a few seconds, and the operator at once
            assertThat(meanwhile.statusCode()).isEqualTo(200);
            for (CompletableFuture<RawHttp.Answer> answer : answers) {
                RawHttp.Answer a = answer.get(10, TimeUnit.SECONDS);
                assertThat(a.status()).as("%s", a).isEqualTo(408);
                assertThat(a.header("Content-Type")).startsWith("application/problem+json");
            }
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(5));
        } finally {
            for (Socket s : slow) {
                s.close();
            }
        }
    }

    /** A connection that has sent a batch request's headers and 7 of its 500 bytes. */
    private static Socket trickle(int port) throws IOException {
        Socket socket = new Socket();
        socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
        socket.setSoTimeout(6_000);
        OutputStream out = socket.getOutputStream();
        out.write(("POST /admin/batches HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                + "Authorization: Bearer " + TestProduct.OPERATOR_TOKEN + "\r\nContent-Length: 500\r\n\r\n{\"actio")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        return socket;
    }

    private static RawHttp.Answer read(Socket socket) {
        try (InputStream in = socket.getInputStream()) {
            return RawHttp.read(in);
        } catch (IOException e) {
            throw new AssertionError("no answer on the slow connection: " + e, e);
        }
    }
}
