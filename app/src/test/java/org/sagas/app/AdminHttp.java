package org.sagas.app;

import com.fasterxml.jackson.databind.JsonNode;
import java.net.URI;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.UUID;

/** The operator API as the tests call it: a token, a method, a path, maybe a JSON body. */
final class AdminHttp {
    /**
     * The settings of the operator API's tests: parked orders move only when someone asks (a
     * ten-minute park retry, and no breaker whose closing would resume them all).
     */
    static final java.util.Map<String, String> SETTINGS = java.util.Map.of("SAGA_PARK_RETRY_MS", "600000",
            "SAGA_INVENTORY_LAYERS", "bulkhead,retries");
    private final TestProduct product;
    private final String token;

    AdminHttp(TestProduct product, String token) {
        this.product = product;
        this.token = token;
    }

    static AdminHttp operator(TestProduct product) {
        return new AdminHttp(product, TestProduct.OPERATOR_TOKEN);
    }

    HttpResponse<String> get(String path) {
        return send("GET", product.admin(path), null);
    }

    HttpResponse<String> post(String path, String json) {
        return send("POST", product.admin(path), json);
    }

    HttpResponse<String> delete(String path) {
        return send("DELETE", product.admin(path), null);
    }

    JsonNode getJson(String path) {
        HttpResponse<String> r = get(path);
        if (r.statusCode() != 200) {
            throw new AssertionError("GET " + path + " answered " + r.statusCode() + ": " + r.body());
        }
        return TestProduct.read(r.body());
    }

    HttpResponse<String> send(String method, URI uri, String json) {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(30))
                .method(method, json == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(json));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        if (json != null) {
            b.header("Content-Type", "application/json");
        }
        return product.send(b.build());
    }

    /** The audit rows about {@code target}, newest first. */
    JsonNode auditOf(String target) {
        return getJson("/admin/audit?target=" + target).get("items");
    }

    static String reason(String text) {
        return "{\"reason\":\"" + text + "\"}";
    }

    static UUID id(JsonNode node) {
        return UUID.fromString(node.asText());
    }
}
