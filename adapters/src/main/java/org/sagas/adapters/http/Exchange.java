package org.sagas.adapters.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.net.http.HttpRequest;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Flow;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.context.Scope;
import org.eclipse.jetty.client.BytesRequestContent;
import org.eclipse.jetty.client.ContentResponse;
import org.eclipse.jetty.client.HttpClient;
import org.eclipse.jetty.client.Request;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.eclipse.jetty.util.thread.ScheduledExecutorScheduler;
import org.sagas.orchestrator.resilience.TimedOutFailure;
import org.sagas.orchestrator.resilience.TransientFailure;
import org.sagas.orchestrator.tracing.Tracing;

/**
 * One participant's HTTP calls, with the outcome mapping both clients share (docs/participants.md,
 * "Say failed and no differently"): a participant that failed (timeout, refused or broken
 * connection, 5xx, 408, 409, 425, 429,
 * an unreadable answer) becomes a {@link TransientFailure}, marked as possibly effective unless
 * the participant certainly did nothing (refused connection, 503, 408, 425, 429); one that
 * refused the request for good (any other status) a {@link ParticipantError}. No retries: they
 * live in one layer above. While tracing is on, each call is a client span whose context goes
 * with the request ({@code traceparent}). The calls go through Jetty's HTTP client (ADR 0035).
 * Thread-safe.
 */
final class Exchange {
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String DEADLINE = "X-Deadline";
    /** The problem type of a 504 by which a participant says it did not start: the deadline would pass first. */
    static final String DEADLINE_EXCEEDED = "/problems/deadline-exceeded";
    private static final int MAX_BODY_IN_MESSAGE = 300;
    private static final long CONNECT_TIMEOUT_MS = 1_000;
    /**
     * One client for the process: connections, the selector and the threads are shared. Jetty's
     * client carries the calls; a request is still described as a JDK {@link HttpRequest}. Jetty's
     * costs less CPU per call than the JDK's (docs/decisions/0035-jetty-http-client-for-participants.md).
     */
    private static final HttpClient CLIENT = startClient();
    private static final ObjectMapper JSON = org.sagas.orchestrator.Json.mapper();

    private final String participant;
    private final String base;
    private final Tracing tracing;

    Exchange(String participant, URI baseUrl) {
        this(participant, baseUrl, Tracing.off());
    }

    Exchange(String participant, URI baseUrl, Tracing tracing) {
        this.participant = participant;
        this.tracing = tracing;
        String url = baseUrl.toString();
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
    }

    /** A request to {@code path} (already encoded) that may take {@code timeout}. */
    HttpRequest.Builder request(String path, Duration timeout) {
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw TransientFailure.withoutEffect(participant + ": no time left for " + path + " (timeout " + timeout
                    + ")", null);
        }
        return HttpRequest.newBuilder(URI.create(base + path)).timeout(timeout).header("Accept", "application/json");
    }

    /** A POST of {@code body} as JSON. */
    HttpRequest.Builder post(String path, Duration timeout, Map<String, ?> body) {
        try {
            return request(path, timeout).header("Content-Type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write request body " + body, e);
        }
    }

    /**
     * Sends {@code request} and answers its JSON body when the status is 2xx; a 404 answers null
     * when {@code notFoundIsAnAnswer}.
     *
     * @throws TransientFailure when the participant failed
     * @throws ParticipantError when it rejected the request
     */
    JsonNode send(HttpRequest request, boolean notFoundIsAnAnswer) {
        if (!tracing.on()) {
            return sendUntraced(request, notFoundIsAnAnswer);
        }
        Span span = tracing.start(participant + " " + request.method() + " " + request.uri().getPath(),
                SpanKind.CLIENT, io.opentelemetry.context.Context.current());
        span.setAttribute("http.request.method", request.method());
        span.setAttribute("server.address", request.uri().getHost());
        span.setAttribute("peer.service", participant);
        try (Scope scope = span.makeCurrent()) {
            HttpRequest.Builder traced = HttpRequest.newBuilder(request, (name, value) -> true);
            tracing.inject(io.opentelemetry.context.Context.current(), traced, HttpRequest.Builder::setHeader);
            return sendUntraced(traced.build(), notFoundIsAnAnswer);
        } catch (RuntimeException e) {
            span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            throw e;
        } finally {
            span.end();
        }
    }

    private JsonNode sendUntraced(HttpRequest request, boolean notFoundIsAnAnswer) {
        String what = participant + " " + request.method() + " " + request.uri().getPath();
        Answer response = exchange(request, what);
        int status = response.status();
        if (status == 404 && notFoundIsAnAnswer) {
            return null;
        }
        if (status >= 200 && status < 300) {
            return json(response.body(), what);
        }
        String message = what + " answered " + status + ": " + abbreviate(response.body());
        if (status == 504 && DEADLINE_EXCEEDED.equals(problemType(response.body()))) {
            // It did not start: the deadline it was sent would pass first (rule 5). Timed out, without
            // effect; whether that is the participant's fault is judged by the time the attempt had.
            throw new TimedOutFailure(message, null, false);
        }
        switch (outcomeOf(status)) {
            case FAILED_WITHOUT_EFFECT -> throw TransientFailure.withoutEffect(message, null);
            case FAILED_MAYBE_EFFECTIVE -> throw new TransientFailure(message);
            default -> throw new ParticipantError(participant, message, status, response.body());
        }
    }

    /** The problem type (RFC 9457 {@code type}) of a JSON problem body, or null. */
    private static String problemType(String body) {
        try {
            JsonNode type = JSON.readTree(body).get("type");
            return type != null && type.isTextual() ? type.textValue() : null;
        } catch (JsonProcessingException | RuntimeException e) {
            return null;
        }
    }

    /** What a status other than 2xx (and an expected 404) says about the call. */
    enum Failure { FAILED_WITHOUT_EFFECT, FAILED_MAYBE_EFFECTIVE, REFUSED }

    /**
     * 408, 425, 429 and 503: the participant did not get to the request. 409: another request
     * with the same key is in progress there, so the key's effect is unknown. Other 5xx: failed,
     * maybe after part of the work. Everything else (other 4xx, redirects): refused for good.
     */
    static Failure outcomeOf(int status) {
        if (status == 408 || status == 425 || status == 429 || status == 503) {
            return Failure.FAILED_WITHOUT_EFFECT;
        }
        if (status == 409 || status >= 500) {
            return Failure.FAILED_MAYBE_EFFECTIVE;
        }
        return Failure.REFUSED;
    }

    /** The text member {@code name} of an answer; a missing one is an unreadable answer. */
    String text(JsonNode answer, String name, HttpRequest request) {
        JsonNode value = answer.get(name);
        if (value == null || !value.isTextual()) {
            throw new TransientFailure(participant + " " + request.method() + " " + request.uri().getPath()
                    + ": answer without \"" + name + "\": " + abbreviate(answer.toString()));
        }
        return value.textValue();
    }

    /** A status and a body read as UTF-8. */
    private record Answer(int status, String body) {}

    private Answer exchange(HttpRequest request, String what) {
        long timeoutMs = request.timeout().map(Duration::toMillis).orElse(0L);
        Request call = CLIENT.newRequest(request.uri()).method(request.method());
        if (timeoutMs > 0) {
            call.timeout(timeoutMs, TimeUnit.MILLISECONDS);
        }
        call.headers(h -> request.headers().map().forEach((name, values) -> values.forEach(v -> h.add(name, v))));
        byte[] body = bodyOf(request);
        if (body != null) {
            call.body(new BytesRequestContent(request.headers().firstValue("Content-Type").orElse("application/json"), body));
        }
        try {
            ContentResponse response = call.send();
            return new Answer(response.getStatus(), new String(response.getContent(), StandardCharsets.UTF_8));
        } catch (TimeoutException e) {
            throw timedOut(what, timeoutMs, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            if (cause instanceof TimeoutException) {
                throw timedOut(what, timeoutMs, cause);
            }
            if (cause instanceof SocketTimeoutException) { // the connect timeout: nothing was sent
                throw TransientFailure.withoutEffect(what + ": could not connect in time (" + cause + ")", cause);
            }
            if (cause instanceof ConnectException) {
                throw TransientFailure.withoutEffect(what + ": connection refused or failed (" + cause + ")", cause);
            }
            if (cause instanceof IOException) {
                throw new TransientFailure(what + ": I/O error (" + cause + ")", cause);
            }
            throw new TransientFailure(what + ": failed (" + cause + ")", cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TransientFailure(what + ": interrupted", e);
        }
    }

    private static TimedOutFailure timedOut(String what, long timeoutMs, Throwable cause) {
        return new TimedOutFailure(what + " timed out (" + cause.getMessage() + ", timeout " + timeoutMs + " ms)",
                cause, true);
    }

    /** The bytes a request's body publisher gives (the requests here carry a string, published at once). */
    private static byte[] bodyOf(HttpRequest request) {
        HttpRequest.BodyPublisher publisher = request.bodyPublisher().orElse(null);
        if (publisher == null || publisher.contentLength() == 0) {
            return null;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CompletableFuture<Void> done = new CompletableFuture<>();
        publisher.subscribe(new Flow.Subscriber<ByteBuffer>() {
            @Override
            public void onSubscribe(Flow.Subscription subscription) {
                subscription.request(Long.MAX_VALUE);
            }

            @Override
            public void onNext(ByteBuffer item) {
                byte[] bytes = new byte[item.remaining()];
                item.get(bytes);
                out.write(bytes, 0, bytes.length);
            }

            @Override
            public void onError(Throwable throwable) {
                done.completeExceptionally(throwable);
            }

            @Override
            public void onComplete() {
                done.complete(null);
            }
        });
        try {
            done.get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while reading the request body", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot read the request body of " + request, e);
        }
        return out.toByteArray();
    }

    /**
     * Daemon threads named {@code HttpClient-*} (the benchmarks count them as the HTTP client's),
     * HTTP/1.1, no redirects followed and no authentication attempted (as the JDK's client by
     * default).
     */
    private static HttpClient startClient() {
        QueuedThreadPool threads = new QueuedThreadPool(64, 2);
        threads.setName("HttpClient");
        threads.setDaemon(true);
        HttpClient client = new HttpClient();
        client.setExecutor(threads);
        client.setScheduler(new ScheduledExecutorScheduler("HttpClient-scheduler", true));
        client.setConnectTimeout(CONNECT_TIMEOUT_MS);
        client.setFollowRedirects(false);
        try {
            client.start();
        } catch (Exception e) {
            throw new IllegalStateException("cannot start the participants' HTTP client", e);
        }
        // Statuses reach the mapping above as they are: no handler of the client's own (start adds
        // them) for 401 (answered as a protocol violation without WWW-Authenticate), 407 or 1xx.
        client.getProtocolHandlers().clear();
        return client;
    }

    private JsonNode json(String body, String what) {
        try {
            JsonNode node = JSON.readTree(body);
            if (node == null || !node.isContainerNode()) {
                throw new TransientFailure(what + ": unreadable answer: " + abbreviate(body));
            }
            return node;
        } catch (JsonProcessingException e) {
            throw new TransientFailure(what + ": unreadable answer: " + abbreviate(body), e);
        }
    }

    /** Percent-encodes one path segment (RFC 3986: everything but unreserved characters). */
    static String segment(String value) {
        byte[] bytes = value.getBytes(StandardCharsets.UTF_8);
        ByteArrayOutputStream out = new ByteArrayOutputStream(bytes.length * 3);
        for (byte b : bytes) {
            char c = (char) (b & 0xff);
            if ((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')
                    || c == '-' || c == '.' || c == '_' || c == '~') {
                out.write(c);
            } else {
                out.write('%');
                out.write(Character.toUpperCase(Character.forDigit((c >> 4) & 0xf, 16)));
                out.write(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return out.toString(StandardCharsets.US_ASCII);
    }

    private static String abbreviate(String body) {
        if (body == null) {
            return "";
        }
        return body.length() <= MAX_BODY_IN_MESSAGE ? body : body.substring(0, MAX_BODY_IN_MESSAGE) + "…";
    }
}
