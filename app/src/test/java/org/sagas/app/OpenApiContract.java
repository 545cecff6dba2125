package org.sagas.app;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.InputFormat;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One listener's OpenAPI 3.1 document as the tests hold the server to it: which operations it
 * describes, and whether a real answer is one of them — a documented status, a documented content
 * type, its required headers and header values, a body valid against the operation's schema (JSON
 * Schema 2020-12, checked by networknt's validator with every {@code $ref} into {@code components}
 * resolved), and for a success the request body that was sent valid against the request schema.
 * Remembers which operations were checked, so a test can tell which it never exercised.
 */
final class OpenApiContract {
    private static final Set<String> METHODS = Set.of("get", "put", "post", "delete", "patch", "head", "options");

    private final String name;
    private final String text;
    private final JsonNode document;
    private final String iri;
    private final SchemaRegistry registry;
    private final Set<String> checked = ConcurrentHashMap.newKeySet();

    private OpenApiContract(String name, String text) {
        this.name = name;
        this.text = text;
        this.document = TestProduct.read(text);
        // The document is the schema resource; responses are validated against pointers into it.
        this.iri = "https://sagas.test/openapi/" + name + ".json";
        this.registry = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
                builder -> builder.schemas(Map.of(iri, text)));
    }

    /** The document of resource {@code path} on the classpath (as the jar ships it). */
    static OpenApiContract resource(String name, String path) {
        try (InputStream in = OpenApiContract.class.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException(path + " is not on the classpath");
            }
            return new OpenApiContract(name, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The public listener's, the operator listener's and the ops listener's documents. */
    static OpenApiContract publicApi() {
        return resource("public", "/org/sagas/orchestrator/http/openapi.json");
    }

    static OpenApiContract adminApi() {
        return resource("admin", "/org/sagas/orchestrator/admin/openapi.json");
    }

    static OpenApiContract opsApi() {
        return resource("ops", "/org/sagas/app/openapi-ops.json");
    }

    /** The sandbox participants' documents. */
    static OpenApiContract inventory() {
        return resource("inventory", "/org/sagas/sandbox/openapi-inventory.json");
    }

    static OpenApiContract payment() {
        return resource("payment", "/org/sagas/sandbox/openapi-payment.json");
    }

    static OpenApiContract fraud() {
        return resource("fraud", "/org/sagas/sandbox/openapi-fraud.json");
    }

    String name() {
        return name;
    }

    @Override
    public String toString() {
        return name;
    }

    String text() {
        return text;
    }

    JsonNode document() {
        return document;
    }

    /** Every operation, as {@code "GET /orders/{id}"}, sorted. */
    Set<String> operations() {
        Set<String> ops = new TreeSet<>();
        for (Iterator<Map.Entry<String, JsonNode>> it = document.path("paths").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> path = it.next();
            JsonNode item = resolve(path.getValue());
            item.fieldNames().forEachRemaining(method -> {
                if (METHODS.contains(method)) {
                    ops.add(method.toUpperCase(Locale.ROOT) + " " + path.getKey());
                }
            });
        }
        return ops;
    }

    /** The operations no {@link #check} has covered yet. */
    Set<String> unchecked() {
        Set<String> left = new TreeSet<>(operations());
        left.removeAll(checked);
        return left;
    }

    /**
     * Holds {@code response} to the operation {@code method template}.
     *
     * @throws AssertionError saying what in the answer the document does not allow
     */
    void check(String method, String template, HttpResponse<String> response) {
        check(method, template, null, response);
    }

    /**
     * Holds {@code response} to the operation, and when it succeeded, the JSON {@code requestBody}
     * that was sent (null: none) to the operation's request schema: a schema that refuses a
     * request the server accepted is wrong too.
     */
    void check(String method, String template, String requestBody, HttpResponse<String> response) {
        String where = name + ": " + method + " " + template + " answered " + response.statusCode();
        String operationPointer = operationPointer(template, method);
        JsonNode operation = document.at(operationPointer);
        if (operation.isMissingNode()) {
            throw new AssertionError(name + ": no operation " + method + " " + template + " in the document");
        }
        String status = Integer.toString(response.statusCode());
        JsonNode documented = operation.path("responses").path(status);
        if (documented.isMissingNode()) {
            throw new AssertionError(where + ", a status the document does not list (it lists "
                    + fieldNames(operation.path("responses")) + "): " + response.body());
        }
        String answerPointer = documented.has("$ref") ? documented.get("$ref").asText().substring(1)
                : operationPointer + "/responses/" + status;
        JsonNode answer = document.at(answerPointer);
        checkHeaders(where, answerPointer, answer, response);
        JsonNode content = answer.path("content");
        String contentType = response.headers().firstValue("Content-Type").map(OpenApiContract::mediaType).orElse(null);
        if (content.isMissingNode() || content.isEmpty()) {
            if (!response.body().isEmpty()) {
                throw new AssertionError(where + " with a body the document does not describe: " + response.body());
            }
        } else {
            if (contentType == null || !content.has(contentType)) {
                throw new AssertionError(where + " as " + contentType + "; the document says " + fieldNames(content));
            }
            String pointer = answerPointer + "/content/" + escape(contentType) + "/schema";
            if (contentType.endsWith("json")) {
                validate(where, pointer, response.body());
            } else if (!document.at(pointer).isMissingNode()) {
                // Text (HTML, Prometheus text): the schema speaks of the body as one string.
                validate(where, pointer, org.sagas.orchestrator.Json.write(response.body()));
            }
        }
        if (requestBody != null && response.statusCode() < 300) {
            String request = operationPointer + "/requestBody";
            JsonNode body = operation.path("requestBody");
            if (body.has("$ref")) {
                request = body.get("$ref").asText().substring(1);
            }
            String schema = request + "/content/application~1json/schema";
            if (document.at(schema).isMissingNode()) {
                throw new AssertionError(where + " to a JSON body the document does not describe: " + requestBody);
            }
            validate(name + ": the request " + method + " " + template + " that succeeded", schema, requestBody);
        }
        checked.add(method.toUpperCase(Locale.ROOT) + " " + template);
    }

    /** Required headers are there; each documented header that is there has a value its schema allows. */
    private void checkHeaders(String where, String answerPointer, JsonNode answer, HttpResponse<String> response) {
        for (Iterator<Map.Entry<String, JsonNode>> it = answer.path("headers").fields(); it.hasNext();) {
            Map.Entry<String, JsonNode> header = it.next();
            JsonNode declared = header.getValue();
            String headerPointer = declared.has("$ref") ? declared.get("$ref").asText().substring(1)
                    : answerPointer + "/headers/" + escape(header.getKey());
            var value = response.headers().firstValue(header.getKey());
            if (value.isEmpty()) {
                if (document.at(headerPointer).path("required").asBoolean(false)) {
                    throw new AssertionError(where + " without the required header " + header.getKey());
                }
                continue;
            }
            String schema = headerPointer + "/schema";
            String type = document.at(schema).path("type").asText("");
            // A header is text; an integer one is held to its schema as the number it spells.
            String json = (type.equals("integer") || type.equals("number")) && value.get().matches("-?[0-9]+")
                    ? value.get() : org.sagas.orchestrator.Json.write(value.get());
            validate(where + ", header " + header.getKey() + ": " + value.get(), schema, json);
        }
    }

    /** Where the operation is, following its path item's {@code $ref} when it is a shared one. */
    private String operationPointer(String template, String method) {
        JsonNode item = document.path("paths").path(template);
        String itemPointer = item.has("$ref") ? item.get("$ref").asText().substring(1) : "/paths/" + escape(template);
        return itemPointer + "/" + method.toLowerCase(Locale.ROOT);
    }

    /** Validates {@code json} against the schema at {@code pointer} in this document. */
    void validate(String where, String pointer, String json) {
        Schema schema = registry.getSchema(SchemaLocation.of(iri + "#" + pointer));
        List<Error> errors = schema.validate(json, InputFormat.JSON);
        if (!errors.isEmpty()) {
            throw new AssertionError(where + ", a body the schema " + pointer + " refuses: " + errors + "\n" + json);
        }
    }

    /** Compiles the schema at {@code pointer}: every {@code $ref} in it must resolve. */
    void compile(String pointer) {
        Schema schema = registry.getSchema(SchemaLocation.of(iri + "#" + pointer));
        schema.initializeValidators();
    }

    /** Follows a local {@code $ref} (path items, responses, headers) to what it names. */
    JsonNode resolve(JsonNode node) {
        JsonNode at = node;
        for (int hops = 0; at.has("$ref") && hops < 10; hops++) {
            String ref = at.get("$ref").asText();
            if (!ref.startsWith("#/")) {
                throw new AssertionError(name + ": only local references are used, found " + ref);
            }
            at = document.at(ref.substring(1));
            if (at.isMissingNode()) {
                throw new AssertionError(name + ": " + ref + " does not resolve");
            }
        }
        return at;
    }

    private static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }

    private static String mediaType(String header) {
        int semicolon = header.indexOf(';');
        return (semicolon < 0 ? header : header.substring(0, semicolon)).strip().toLowerCase(Locale.ROOT);
    }

    private static List<String> fieldNames(JsonNode node) {
        List<String> names = new ArrayList<>();
        node.fieldNames().forEachRemaining(names::add);
        return names;
    }
}
