package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.javalin.Javalin;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class BodyGateTest {
    private Javalin app;

    @AfterEach
    void stop() {
        if (app != null) {
            app.stop();
        }
    }

    @Test
    void shouldLetARouteReadAWholeSmallBodyHoweverLongItsOwnThreadStalls() throws Exception {
        // Given the public API's edge limits (1 KiB/s at least), and a route whose thread stalls for
        // 1.5 s between two reads of the body, as on a machine short of CPU
        EdgeLimits limits = EdgeLimits.defaults();
        app = Javalin.create(config -> {
            limits.apply(config);
            limits.gateBodies(config, reason -> { });
            config.routes.post("/orders", ctx -> {
                InputStream in = ctx.req().getInputStream();
                byte[] first = in.readNBytes(10);
                Thread.sleep(1_500);
                byte[] rest = in.readAllBytes();
                ctx.result(new String(first, StandardCharsets.UTF_8) + new String(rest, StandardCharsets.UTF_8));
            });
        }).start("127.0.0.1", 0);

        // When a client sends a 60-byte body with its headers
        String body = "{\"customerId\":\"c-1\",\"lines\":[{\"sku\":\"A\",\"quantity\":1}]}";
        HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + app.port() + "/orders")).timeout(Duration.ofSeconds(10))
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());

        // Then the route reads it whole: the body came at once, the wait was the product's
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
        assertThat(answer.body()).isEqualTo(body);
    }
}
