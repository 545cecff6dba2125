package org.sagas.orchestrator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.javalin.Javalin;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.Json;

/** A listener's OpenAPI document: loaded once, refused at start when broken, served as it is. */
class OpenApiDocumentTest {

    @Test
    void shouldRefuseAMissingOrBrokenDocumentAtStart() {
        assertThatThrownBy(() -> OpenApiDocument.load(OpenApiDocumentTest.class, "no-such.json"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("missing from the build");
        assertThatThrownBy(() -> OpenApiDocument.load(OpenApiDocumentTest.class, "openapi-broken.json"))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("is not JSON");
    }

    @Test
    void shouldServeTheDocumentAsJsonAndListTheRoutesRegistered() throws Exception {
        OpenApiDocument document = OpenApiDocument.load(ApiServer.class, "openapi.json");
        Javalin app = Javalin.create(config -> {
            config.startup.showJavalinBanner = false;
            config.routes.post("/orders", ctx -> ctx.status(202));
            document.register(config.routes);
        }).start("127.0.0.1", 0);
        try {
            HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + app.port() + OpenApiDocument.PATH)).build(),
                    HttpResponse.BodyHandlers.ofString());

            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).hasValueSatisfying(v -> assertThat(v)
                    .startsWith("application/json"));
            assertThat(r.body()).contains("\"openapi\": \"3.1.");
            assertThat(OpenApiDocument.routesOf(app)).containsExactly("GET /openapi.json", "POST /orders");
        } finally {
            app.stop();
        }
    }

    @Test
    void shouldDocumentEveryComponentFailureCauseAndNoOther() throws Exception {
        // The public API's document lists the codes a caller may see, and no others.
        try (var in = OpenApiDocumentTest.class.getResourceAsStream("/org/sagas/orchestrator/http/openapi.json")) {
            var codes = Json.mapper().readTree(in).at("/components/schemas/ComponentHealth/properties/lastCause/enum");
            java.util.List<String> documented = new java.util.ArrayList<>();
            codes.forEach(code -> {
                if (!code.isNull()) {
                    documented.add(code.asText());
                }
            });
            assertThat(documented).containsExactly(java.util.Arrays.stream(org.sagas.orchestrator.lifecycle.FailureCause.values()).map(Enum::name)
                    .toArray(String[]::new));
        }
    }
}
