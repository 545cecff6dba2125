package org.sagas.sandbox;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

/** Plain HTTP calls to a sandbox, the way a script or another team would make them. */
final class PlainHttp {
    private static final HttpClient CLIENT = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    private static final ObjectMapper JSON = new ObjectMapper();
    private final String base;
    /** Sent as {@code Authorization: Bearer} on every request; null: none. */
    private final String token;

    PlainHttp(int port) {
        this(port, null);
    }

    /** Calls that carry {@code token} (the sandbox's ledger token) on every request. */
    PlainHttp(int port, String token) {
        this.base = "http://127.0.0.1:" + port;
        this.token = token;
    }

    /** A GET with {@code headers} given as name, value, name, value... and no token of this client's. */
    Answer getWith(String path, String... headers) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20)).GET();
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return send(request.build());
    }

    URI uri(String path) {
        return URI.create(base + path);
    }

    Answer get(String path) {
        return send(request(path).GET().build());
    }

    Answer put(String path, String body) {
        return send(request(path).PUT(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    /** A POST with {@code headers} given as name, value, name, value... */
    Answer post(String path, String body, String... headers) {
        return send(postRequest(path, body, headers));
    }

    CompletableFuture<Answer> postAsync(String path, String body, String... headers) {
        return CLIENT.sendAsync(postRequest(path, body, headers), HttpResponse.BodyHandlers.ofString())
                .thenApply(Answer::of);
    }

    private HttpRequest postRequest(String path, String body, String... headers) {
        HttpRequest.Builder request = request(path).POST(HttpRequest.BodyPublishers.ofString(body));
        for (int i = 0; i < headers.length; i += 2) {
            request.header(headers[i], headers[i + 1]);
        }
        return request.build();
    }

    private HttpRequest.Builder request(String path) {
        HttpRequest.Builder request = HttpRequest.newBuilder(uri(path)).timeout(Duration.ofSeconds(20))
                .header("Content-Type", "application/json");
        return token == null ? request : request.header("Authorization", "Bearer " + token);
    }

    private static Answer send(HttpRequest request) {
        try {
            return Answer.of(CLIENT.send(request, HttpResponse.BodyHandlers.ofString()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** A response: status, content type and body. */
    record Answer(int status, String contentType, String body) {
        static Answer of(HttpResponse<String> response) {
            return new Answer(response.statusCode(), response.headers().firstValue("Content-Type").orElse(""),
                    response.body());
        }

        JsonNode json() {
            try {
                return JSON.readTree(body);
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
