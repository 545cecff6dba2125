package org.sagas.app.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.net.ConnectException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.sagas.orchestrator.Json;

/**
 * The CLI's side of the operator API: one request, its JSON answer, and every failure turned into
 * a {@link Failure} that says what to do. Thread-safe.
 */
final class AdminClient {
    /** A request that did not succeed: the exit code and what to tell the person. */
    static final class Failure extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final int exitCode;
        private final transient JsonNode body;

        Failure(int exitCode, String message, JsonNode body) {
            super(message, null, false, false);
            this.exitCode = exitCode;
            this.body = body;
        }

        int exitCode() {
            return exitCode;
        }

        /** The server's problem+json, when it answered one. */
        JsonNode body() {
            return body;
        }
    }

    static final int REFUSED = 1;
    static final int UNREACHABLE = 3;

    private final URI base;
    private final String token;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(3)).build();

    AdminClient(URI base, String token) {
        String url = base.toString();
        this.base = URI.create(url.endsWith("/") ? url.substring(0, url.length() - 1) : url);
        this.token = token;
    }

    JsonNode get(String path, Map<String, List<String>> query) {
        return send("GET", path + query(query), null);
    }

    JsonNode post(String path, Object body) {
        return send("POST", path, body);
    }

    JsonNode delete(String path, Object body) {
        return send("DELETE", path, body);
    }

    private JsonNode send(String method, String path, Object body) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base + path)).timeout(Duration.ofSeconds(60))
                .header("Authorization", "Bearer " + token).header("Accept", "application/json")
                .header("Content-Type", "application/json")
                .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(Json.write(body)))
                .build();
        HttpResponse<String> response;
        try {
            response = http.send(request, HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        } catch (HttpConnectTimeoutException | ConnectException e) {
            throw unreachable(e);
        } catch (HttpTimeoutException e) {
            throw new Failure(UNREACHABLE, "the operator API at " + base + " did not answer within 60 s", null);
        } catch (IOException e) {
            throw unreachable(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new Failure(UNREACHABLE, "interrupted", null);
        }
        JsonNode json = parse(response.body());
        int status = response.statusCode();
        if (status >= 200 && status < 300) {
            return json;
        }
        throw new Failure(REFUSED, explain(status, json, response.body()), json);
    }

    private Failure unreachable(Exception e) {
        String why = e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
        return new Failure(UNREACHABLE, "cannot reach the operator API at " + base + " (" + why + "). Is the"
                + " product running (./sagas up)? Set SAGA_ADMIN_URL (or --url) to where it listens.", null);
    }

    private String explain(int status, JsonNode problem, String raw) {
        String title = problem != null ? problem.path("title").asText("") : "";
        String detail = problem != null ? problem.path("detail").asText(raw) : raw;
        StringBuilder out = new StringBuilder().append(status).append(' ').append(title.isEmpty() ? "error" : title)
                .append(": ").append(detail);
        if (status == 401) {
            out.append(". Set SAGA_ADMIN_TOKEN (or --token / --token-file) to an admin token; ./sagas up prints"
                    + " where it wrote one.");
        }
        if (problem != null && problem.hasNonNull("field")) {
            out.append(" (").append(problem.get("field").asText()).append(')');
        }
        if (problem != null && problem.has("current")) {
            out.append("\n  current state: ").append(CliTables.state(problem.get("current")));
        }
        return out.toString();
    }

    private static JsonNode parse(String body) {
        if (body == null || body.isBlank()) {
            return Json.mapper().createObjectNode();
        }
        try {
            return Json.mapper().readTree(body);
        } catch (IOException e) {
            return null;
        }
    }

    private static String query(Map<String, List<String>> params) {
        StringBuilder q = new StringBuilder();
        params.forEach((name, values) -> values.forEach(v -> q.append(q.length() == 0 ? '?' : '&')
                .append(URLEncoder.encode(name, StandardCharsets.UTF_8)).append('=')
                .append(URLEncoder.encode(v, StandardCharsets.UTF_8))));
        return q.toString();
    }
}
