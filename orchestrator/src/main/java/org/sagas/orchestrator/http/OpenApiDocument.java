package org.sagas.orchestrator.http;

import io.javalin.Javalin;
import io.javalin.config.RoutesConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Locale;
import org.sagas.orchestrator.Json;

/**
 * A listener's OpenAPI 3.1 document, {@code GET /openapi.json}: hand-written JSON kept beside the
 * routes it describes, read once from the jar and served from memory without authentication (it
 * is a public contract, and says nothing a client could not learn by calling). The contract test
 * ({@code OpenApiContractIT}) holds each document to what its listener registers and answers.
 * Immutable and thread-safe.
 */
public final class OpenApiDocument {
    /** Where every listener serves its document. */
    public static final String PATH = "/openapi.json";

    private final byte[] json;

    private OpenApiDocument(byte[] json) {
        this.json = json;
    }

    /**
     * Reads the document {@code resource} next to {@code anchor} in the jar.
     *
     * @throws IllegalStateException when it is missing or not JSON: a build that lost its contract
     */
    public static OpenApiDocument load(Class<?> anchor, String resource) {
        try (InputStream in = anchor.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException("OpenAPI document " + resource + " missing from the build");
            }
            byte[] bytes = in.readAllBytes();
            Json.mapper().readTree(bytes); // fail at start, not on the first client that asks
            return new OpenApiDocument(bytes);
        } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
            throw new IllegalStateException("OpenAPI document " + resource + " is not JSON: "
                    + e.getOriginalMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Adds {@code GET /openapi.json}; the listener must let it through unauthenticated. */
    public void register(RoutesConfig routes) {
        routes.get(PATH, ctx -> ctx.contentType("application/json").result(json));
    }

    /**
     * The routes {@code app} registered, as {@code "GET /orders/{id}"}, sorted: what its document
     * must describe, no more and no less. Read from Javalin's router (its only public view of them).
     */
    public static List<String> routesOf(Javalin app) {
        return app.unsafe.internalRouter.allHttpHandlers().stream()
                .map(parsed -> parsed.endpoint)
                .filter(endpoint -> endpoint.method.isHttpMethod())
                .map(endpoint -> endpoint.method.name().toUpperCase(Locale.ROOT) + " " + endpoint.path)
                .sorted()
                .distinct()
                .toList();
    }
}
