package org.sagas.app;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.sagas.orchestrator.ProblemDetail;

/**
 * The OpenAPI documents the jar ships (public, operator, ops listener, sandbox inventory, payment
 * provider and fraud service) are sound on their own: OpenAPI 3.1 with 2020-12 schemas, every reference resolves, every schema compiles, errors
 * are problem+json, and the public contract's headers and security schemes are there. Whether
 * they match what the servers register and answer is {@link OpenApiContractIT}'s job.
 */
class OpenApiDocumentsTest {

    static Stream<OpenApiContract> documents() {
        return Stream.of(OpenApiContract.publicApi(), OpenApiContract.adminApi(), OpenApiContract.opsApi(),
                OpenApiContract.inventory(), OpenApiContract.payment(), OpenApiContract.fraud());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void shouldBeOpenApi31WithJsonSchema202012(OpenApiContract contract) {
        JsonNode doc = contract.document();
        assertThat(doc.path("openapi").asText()).matches("3\\.1\\.\\d+");
        assertThat(doc.path("jsonSchemaDialect").asText()).isEqualTo("https://json-schema.org/draft/2020-12/schema");
        assertThat(doc.path("info").path("title").asText()).isNotBlank();
        assertThat(doc.path("info").path("version").asText()).isNotBlank();
        assertThat(contract.operations()).contains("GET /openapi.json");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void shouldResolveEveryReference(OpenApiContract contract) {
        List<String> refs = new ArrayList<>();
        collectRefs(contract.document(), refs);
        assertThat(refs).isNotEmpty();
        for (String ref : refs) {
            assertThat(ref).as(contract.name() + ": only local references").startsWith("#/");
            assertThat(contract.document().at(ref.substring(1)).isMissingNode())
                    .as(contract.name() + ": " + ref + " resolves").isFalse();
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void shouldCompileEverySchemaWithItsReferences(OpenApiContract contract) {
        for (Iterator<String> it = contract.document().path("components").path("schemas").fieldNames(); it.hasNext();) {
            contract.compile("/components/schemas/" + it.next());
        }
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("documents")
    void shouldGiveEveryOperationAUniqueIdAndExplicitStatusesWithProblemJsonErrors(OpenApiContract contract) {
        Set<String> ids = new HashSet<>();
        for (String op : contract.operations()) {
            String[] parts = op.split(" ", 2);
            JsonNode operation = contract.resolve(contract.document().path("paths").path(parts[1]))
                    .path(parts[0].toLowerCase(java.util.Locale.ROOT));
            assertThat(ids.add(operation.path("operationId").asText())).as(op + " has a unique operationId").isTrue();
            assertThat(operation.path("responses").size()).as(op + " has responses").isPositive();
            for (Iterator<Map.Entry<String, JsonNode>> it = operation.path("responses").fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> response = it.next();
                // Each status the server answers is listed by itself: no ranges, no default.
                assertThat(response.getKey()).as(op).matches("[1-5][0-9][0-9]");
                int status = Integer.parseInt(response.getKey());
                JsonNode content = contract.resolve(response.getValue()).path("content");
                // Errors are problems; not the console's HTML pages, nor readiness, whose 503 is its DOWN report.
                if (status >= 400 && !parts[1].startsWith("/console") && !parts[1].equals("/health/ready")) {
                    assertThat(fieldNames(content)).as(op + " " + status + " is problem+json")
                            .containsExactly("application/problem+json");
                }
            }
        }
    }

    @Test
    void shouldDescribeTheOrderHeadersAndTheApiKeyOnThePublicApi() {
        OpenApiContract contract = OpenApiContract.publicApi();
        JsonNode submit = contract.document().path("paths").path("/orders").path("post");
        List<String> headers = new ArrayList<>();
        for (JsonNode p : submit.path("parameters")) {
            JsonNode parameter = contract.resolve(p);
            assertThat(parameter.path("in").asText()).isEqualTo("header");
            headers.add(parameter.path("name").asText() + (parameter.path("required").asBoolean() ? "!" : ""));
        }
        assertThat(headers).containsExactlyInAnyOrder("Idempotency-Key!", "X-Deadline", "X-Priority",
                "traceparent");
        JsonNode scheme = contract.document().at("/components/securitySchemes/apiKey");
        assertThat(scheme.path("type").asText()).isEqualTo("http");
        assertThat(scheme.path("scheme").asText()).isEqualTo("bearer");
        assertThat(submit.path("security").toString()).contains("apiKey");
    }

    @Test
    void shouldRequireTheAdminTokenOnTheOperatorApiButNotOnTheConsolePagesOrTheDocument() {
        OpenApiContract contract = OpenApiContract.adminApi();
        JsonNode doc = contract.document();
        assertThat(doc.at("/components/securitySchemes/adminToken/scheme").asText()).isEqualTo("bearer");
        assertThat(doc.path("security").toString()).contains("adminToken");
        for (String op : contract.operations()) {
            String[] parts = op.split(" ", 2);
            JsonNode operation = doc.path("paths").path(parts[1]).path(parts[0].toLowerCase(java.util.Locale.ROOT));
            boolean open = parts[1].startsWith("/console") || parts[1].equals("/openapi.json");
            assertThat(operation.has("security") && operation.path("security").isEmpty()).as(op + " is open")
                    .isEqualTo(open);
            assertThat(operation.path("responses").has("401")).as(op + " answers 401")
                    .isEqualTo(!open || parts[1].equals("/console/login"));
        }
    }

    @Test
    void shouldAcceptTheContractsOwnExampleAndTheServersProblemShape() {
        OpenApiContract contract = OpenApiContract.publicApi();
        contract.validate("example", "/components/schemas/OrderRequest",
                contract.document().at("/components/schemas/OrderRequest/examples/0").toString());
        contract.validate("problem", "/components/schemas/OrderProblem", new ProblemDetail(422, "out-of-stock",
                "Out of stock", "not enough stock", Map.of("code", "out_of_stock",
                        "orderId", java.util.UUID.randomUUID())).json());
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> contract.validate("bad", "/components/schemas/OrderRequest",
                "{\"customerId\":\"c-1\",\"currency\":\"euro\",\"lines\":[]}")).isInstanceOf(AssertionError.class)
                .hasMessageContaining("currency");
    }

    private static void collectRefs(JsonNode node, List<String> refs) {
        if (node.isObject()) {
            for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext();) {
                Map.Entry<String, JsonNode> e = it.next();
                if (e.getKey().equals("$ref") && e.getValue().isTextual()) {
                    refs.add(e.getValue().asText());
                } else {
                    collectRefs(e.getValue(), refs);
                }
            }
        } else if (node.isArray()) {
            node.forEach(child -> collectRefs(child, refs));
        }
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
