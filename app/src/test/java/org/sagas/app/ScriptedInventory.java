package org.sagas.app;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * An inventory service that answers what the test scripts — a refusal the sandbox would never
 * give, say — and counts the calls. The product reaches it through {@code SAGA_INVENTORY_URL}.
 */
final class ScriptedInventory implements AutoCloseable {
    /** One scripted answer. */
    record Answer(int status, String body) {}

    static final Answer RESERVED = new Answer(200, "{\"status\":\"RESERVED\"}");
    static final Answer RELEASED = new Answer(200, "{\"status\":\"RELEASED\"}");

    static Answer problem(int status, String detail) {
        return new Answer(status, "{\"type\":\"about:blank\",\"status\":" + status + ",\"detail\":\"" + detail + "\"}");
    }

    private final HttpServer server;
    volatile Answer reserve = RESERVED;
    volatile Answer release = RELEASED;
    final AtomicInteger reserves = new AtomicInteger();
    final AtomicInteger releases = new AtomicInteger();

    ScriptedInventory() {
        try {
            server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 50);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
        server.createContext("/reservations", this::handle);
        server.start();
    }

    String url() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange) throws IOException {
        exchange.getRequestBody().readAllBytes();
        if (!"POST".equals(exchange.getRequestMethod())) {
            // Look-ups (the warm-up's probe, the reconciler's ledger feed) are not reservations:
            // nothing held, and not counted.
            byte[] empty = "{\"items\":[],\"nextCursor\":null}".getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().add("Content-Type", "application/json");
            exchange.sendResponseHeaders(exchange.getRequestURI().getQuery() == null ? 404 : 200, empty.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(empty);
            }
            return;
        }
        boolean isRelease = exchange.getRequestURI().getPath().endsWith("/release");
        (isRelease ? releases : reserves).incrementAndGet();
        Answer answer = isRelease ? release : reserve;
        byte[] body = answer.body().getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().add("Content-Type", answer.status() < 300 ? "application/json"
                : "application/problem+json");
        exchange.sendResponseHeaders(answer.status(), body.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(body);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
