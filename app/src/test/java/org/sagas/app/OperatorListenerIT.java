package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
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
    void shouldKeepOnlyASessionIdInTheConsoleCookieWithItsAttributes() {
        // When an operator signs in with a token
        HttpResponse<String> login = signIn(TestProduct.OPERATOR_TOKEN);

        // Then each cookie set holds neither the token nor its encoding, only a long random id
        assertThat(login.statusCode()).isEqualTo(303);
        List<String> all = login.headers().allValues("Set-Cookie");
        assertThat(all).allSatisfy(c -> assertThat(c).doesNotContain(TestProduct.OPERATOR_TOKEN));
        // (a cookie that earlier versions set on Path=/, with the token in it, is only ever dropped)
        assertThat(all).filteredOn(c -> pathOf(c).equals("/")).allSatisfy(c -> assertThat(c)
                .startsWith("sagas_admin=;").contains("Max-Age=0"));
        List<String> cookies = all.stream().filter(c -> !pathOf(c).equals("/")).toList();
        assertThat(cookies).isNotEmpty().allSatisfy(cookie -> {
            String value = valueOf(cookie);
            assertThat(cookie).doesNotContain(TestProduct.OPERATOR_TOKEN).doesNotContain(Base64.getUrlEncoder()
                    .withoutPadding().encodeToString(TestProduct.OPERATOR_TOKEN.getBytes(StandardCharsets.UTF_8)));
            assertThat(Base64.getUrlDecoder().decode(value)).hasSizeGreaterThanOrEqualTo(16);
            // And it is HttpOnly, SameSite=Strict, short-lived and kept to the operator's paths
            assertThat(cookie).contains("HttpOnly", "SameSite=Strict");
            assertThat(pathOf(cookie)).isIn("/console", "/admin");
            long maxAge = Long.parseLong(cookie.replaceAll(".*Max-Age=(\\d+).*", "$1"));
            assertThat(maxAge).isPositive().isLessThanOrEqualTo(
                    AdminSettings.SESSION_IDLE.parse(AdminSettings.SESSION_IDLE.defaultValue()).toSeconds());
            // And not Secure on plain HTTP (the browser would never send it back)
            assertThat(cookie).doesNotContain("Secure");
        });
        assertThat(cookies).extracting(OperatorListenerIT::pathOf).containsExactlyInAnyOrder("/console", "/admin");
        assertThat(cookies).extracting(OperatorListenerIT::valueOf).containsOnly(valueOf(cookies.get(0)));
        // And the session stands for the token's operator
        HttpResponse<String> whoami = withSession(valueOf(cookies.get(0)), "/admin/whoami");
        assertThat(whoami.statusCode()).isEqualTo(200);
        assertThat(TestProduct.read(whoami.body()).path("name").asText()).isEqualTo("admin");
    }

    @Test
    void shouldRefuseTheOldCookieAfterSignOut() {
        // Given a signed-in viewer
        String session = valueOf(signIn(TestProduct.VIEWER_TOKEN).headers().firstValue("Set-Cookie").orElseThrow());
        assertThat(withSession(session, "/admin/whoami").statusCode()).isEqualTo(200);

        // When the viewer signs out
        HttpResponse<String> out = product.send(HttpRequest.newBuilder(product.admin("/console/logout"))
                .header("Cookie", "sagas_admin=" + session).POST(HttpRequest.BodyPublishers.noBody()).build());

        // Then the browser is told to drop the cookie, and the old value opens nothing any more
        assertThat(out.statusCode()).isEqualTo(303);
        assertThat(out.headers().allValues("Set-Cookie")).isNotEmpty().allSatisfy(c -> assertThat(c)
                .contains("Max-Age=0"));
        AdminAccessIT.assertProblem(withSession(session, "/admin/whoami"), 401);
        HttpResponse<String> page = product.send(HttpRequest.newBuilder(product.admin("/console/"))
                .header("Cookie", "sagas_admin=" + session).GET().build());
        assertThat(page.body()).contains("action=\"/console/login\"").doesNotContain("/console/console.js");
    }

    @Test
    void shouldAnswer429AfterRepeatedFailuresFromOneAddressButKeepASignedInSession() {
        // Given an address allowed three failures, and a console session opened before
        int allowed = 3;
        product.ensure(Map.of("SAGA_ADMIN_AUTH_FAILURES", Integer.toString(allowed)));
        String session = valueOf(signIn(TestProduct.OPERATOR_TOKEN).headers().firstValue("Set-Cookie").orElseThrow());
        double throttledBefore = refused("auth-throttled");

        // When that address keeps guessing tokens at the login form
        List<Integer> answers = new ArrayList<>();
        for (int i = 0; i <= allowed; i++) {
            answers.add(signIn("guess-" + i).statusCode());
        }
        HttpResponse<String> throttled = signIn("guess-again");

        // Then the first failures are 401, then 429 with Retry-After as problem+json
        assertThat(answers).containsExactly(401, 401, 401, 429);
        AdminAccessIT.assertProblem(throttled, 429);
        assertThat(throttled.headers().firstValue("Retry-After").map(Long::parseLong)).hasValueSatisfying(
                s -> assertThat(s).isPositive());
        // And bearer tokens from that address are refused the same way, right or wrong
        AdminAccessIT.assertProblem(new AdminHttp(product, "wrong").get("/admin/whoami"), 429);
        AdminAccessIT.assertProblem(AdminHttp.operator(product).get("/admin/whoami"), 429);
        // And the session opened before is not slowed
        assertThat(withSession(session, "/admin/whoami").statusCode()).isEqualTo(200);
        // And the refusals are counted
        assertThat(refused("auth-throttled")).isGreaterThanOrEqualTo(throttledBefore + 4);
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

    private static HttpResponse<String> signIn(String token) {
        return product.send(HttpRequest.newBuilder(product.admin("/console/login"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("token=" + token)).build());
    }

    private static HttpResponse<String> withSession(String session, String path) {
        return product.send(HttpRequest.newBuilder(product.admin(path)).header("Cookie", "sagas_admin=" + session)
                .header("X-Sagas-Console", "1").GET().build());
    }

    private static double refused(String reason) {
        Metrics metrics = product.metrics();
        return metrics.has("saga_admin_refused_total", "reason", reason)
                ? metrics.value("saga_admin_refused_total", "reason", reason) : 0;
    }

    private static String valueOf(String setCookie) {
        String pair = setCookie.substring(0, setCookie.indexOf(';'));
        return pair.substring(pair.indexOf('=') + 1);
    }

    private static String pathOf(String setCookie) {
        return setCookie.replaceAll(".*Path=([^;]*).*", "$1");
    }
}
