package org.sagas.peers.saga.peer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A peer's {@code POST /orders}, with the product's request and answer shapes: the body
 * {@code {"customerId","currency","lines":[{"sku","quantity","unitPriceCents"}]}}, the headers
 * {@code Idempotency-Key} (required; the order id is derived from it) and {@code X-Deadline}
 * (passed on to the inventory), and {@code 202 {"orderId","status":"AWAITING_PAYMENT"}} once the
 * stock is reserved, {@code 422} when it is out of stock, {@code 400} for a bad request,
 * {@code 503} when the engine failed. {@code X-Payment-Timeout-Ms} overrides the payment timeout
 * (default 60 s, as the product's {@code SAGA_PAYMENT_STEP_TIMEOUT_MS}); the timeout probe uses it.
 * {@code GET /health} answers 200. 32 request threads. Thread-safe.
 */
public final class OrderEndpoint implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OrderEndpoint.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final long DEFAULT_PAYMENT_TIMEOUT_MS = 60_000;

    /** What a peer does with an accepted order: start its saga, answer once the stock is reserved. */
    @FunctionalInterface
    public interface Saga {
        /** @return true when the stock is reserved and the payment under way, false when out of stock */
        boolean submit(OrderRequest order) throws Exception;
    }

    private final HttpServer server;
    private final ExecutorService threads = Executors.newFixedThreadPool(32, PaymentWorker.named("http-"));

    private OrderEndpoint(HttpServer server) {
        this.server = server;
    }

    /** Listens on 127.0.0.1 at a free port; see {@link #port()}. */
    public static OrderEndpoint start(Saga saga) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 512);
        OrderEndpoint endpoint = new OrderEndpoint(server);
        server.createContext("/orders", exchange -> endpoint.handle(exchange, saga));
        server.createContext("/health", exchange -> answer(exchange, 200, "{\"status\":\"UP\"}"));
        server.setExecutor(endpoint.threads);
        server.start();
        return endpoint;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private void handle(HttpExchange exchange, Saga saga) throws IOException {
        if (!exchange.getRequestMethod().equals("POST")) {
            answer(exchange, 405, problem("only POST"));
            return;
        }
        OrderRequest order;
        try {
            order = parse(exchange);
        } catch (IllegalArgumentException | IOException e) {
            answer(exchange, 400, problem(e.getMessage()));
            return;
        }
        try {
            boolean reserved = saga.submit(order);
            answer(exchange, reserved ? 202 : 422, "{\"orderId\":\"" + order.orderId() + "\",\"status\":\""
                    + (reserved ? "AWAITING_PAYMENT" : "REJECTED") + "\"}");
        } catch (Exception e) {
            log.warn("order {}: submission failed: {}", order.orderId(), e.toString());
            answer(exchange, 503, problem("the engine failed: " + e.getClass().getSimpleName()));
        }
    }

    private static OrderRequest parse(HttpExchange exchange) throws IOException {
        String key = exchange.getRequestHeaders().getFirst("Idempotency-Key");
        if (key == null || key.isBlank()) {
            throw new IllegalArgumentException("Idempotency-Key is required");
        }
        JsonNode body;
        try (InputStream in = exchange.getRequestBody()) {
            body = JSON.readTree(in);
        }
        if (body == null || !body.path("lines").isArray() || body.path("lines").isEmpty()) {
            throw new IllegalArgumentException("lines must be a non-empty array");
        }
        List<OrderRequest.Line> lines = new ArrayList<>();
        long total = 0;
        for (JsonNode line : body.path("lines")) {
            OrderRequest.Line l = new OrderRequest.Line(text(line, "sku"), line.path("quantity").asInt(),
                    line.path("unitPriceCents").asLong());
            if (l.quantity() < 1 || l.unitPriceCents() < 0) {
                throw new IllegalArgumentException("quantity must be at least 1, unitPriceCents not negative");
            }
            lines.add(l);
            total += l.quantity() * l.unitPriceCents();
        }
        String customer = text(body, "customerId");
        String deadline = exchange.getRequestHeaders().getFirst("X-Deadline");
        String timeout = exchange.getRequestHeaders().getFirst("X-Payment-Timeout-Ms");
        String orderId = UUID.nameUUIDFromBytes(("order:" + key).getBytes(StandardCharsets.UTF_8)).toString();
        try {
            return new OrderRequest(orderId, customer, text(body, "currency"), lines, total,
                    deadline == null ? 0 : Long.parseLong(deadline),
                    timeout == null ? DEFAULT_PAYMENT_TIMEOUT_MS : Long.parseLong(timeout),
                    customer.equals(OrderRequest.LOST_REPLY_CUSTOMER));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("X-Deadline and X-Payment-Timeout-Ms must be integers");
        }
    }

    private static String text(JsonNode node, String field) {
        JsonNode value = node.path(field);
        if (!value.isTextual() || value.asText().isBlank()) {
            throw new IllegalArgumentException(field + " is required");
        }
        return value.asText();
    }

    private static String problem(String detail) {
        return JSON.createObjectNode().put("title", "order not accepted").put("detail", detail).toString();
    }

    private static void answer(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("Content-Type",
                status >= 400 && status != 422 ? "application/problem+json" : "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
        threads.shutdownNow();
    }
}
