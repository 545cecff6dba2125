package org.sagas.adapters.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
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
     * costs less CPU per call than the JDK's (docs/decisions/0035-jetty-http-client-for-participants.md).
     */
    private static final HttpClient CLIENT = startClient();
    private static final ObjectMapper JSON = org.sagas.orchestrator.Json.mapper();

    private final String participant;
    private final String base;
    private final String host;
    private final Tracing tracing;

    Exchange(String participant, URI baseUrl) {
        this(participant, baseUrl, Tracing.off());
    }

    Exchange(String participant, URI baseUrl, Tracing tracing) {
        this.participant = participant;
        this.tracing = tracing;
        String url = baseUrl.toString();
        this.base = url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
        this.host = baseUrl.getHost();
    }

    /** A GET of {@code path} (already encoded) that may take {@code timeout}. */
    Call get(String path, Duration timeout) {
        return new Call("GET", path, timeout, null);
    }

    /** A POST of {@code body} as JSON to {@code path} (already encoded) that may take {@code timeout}. */
    Call post(String path, Duration timeout, Map<String, ?> body) {
        try {
            return new Call("POST", path, timeout, JSON.writeValueAsBytes(body));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("cannot write request body " + body, e);
        }
    }

    /**
     * One call being built: its method, path, timeout, headers and JSON body, given to Jetty's client
     * as they are. Not thread-safe: one per call.
     */
    final class Call {
        private final String method;
        private final String path;
        private final long timeoutMs;
        private final byte[] body;
        /** Name, value, name, value: a handful per call. */
        private final List<String> headers = new ArrayList<>(8);

        private Call(String method, String path, Duration timeout, byte[] body) {
            if (timeout == null || timeout.isNegative() || timeout.isZero()) {
                throw TransientFailure.withoutEffect(participant + ": no time left for " + path + " (timeout "
                        + timeout + ")", null);
            }
            this.method = method;
            this.path = path;
            this.timeoutMs = Math.max(1, timeout.toMillis());
            this.body = body;
        }

        Call header(String name, String value) {
            headers.add(name);
            headers.add(value);
            return this;
        }

        /** The deadline header (rule 5), unless {@code epochMillis} is none (0 or {@code Long.MAX_VALUE}). */
        Call deadline(long epochMillis) {
            return epochMillis > 0 && epochMillis != Long.MAX_VALUE ? header(DEADLINE, Long.toString(epochMillis))
                    : this;
        }

        /** As failures name it: the participant, the method and the path without its query. */
        String what() {
            int query = path.indexOf('?');
            return participant + " " + method + " " + (query < 0 ? path : path.substring(0, query));
        }
    }

    /**
     * Sends {@code call} and answers its JSON body when the status is 2xx; a 404 answers null when
     * {@code notFoundIsAnAnswer}.
     *
     * @throws TransientFailure when the participant failed
     * @throws ParticipantError when it rejected the request
     */
    JsonNode send(Call call, boolean notFoundIsAnAnswer) {
        if (!tracing.on()) {
            return sendUntraced(call, notFoundIsAnAnswer);
        }
        Span span = tracing.start(call.what(), SpanKind.CLIENT, io.opentelemetry.context.Context.current());
        span.setAttribute("http.request.method", call.method);
        span.setAttribute("server.address", host);
        span.setAttribute("peer.service", participant);
        try (Scope scope = span.makeCurrent()) {
            tracing.inject(io.opentelemetry.context.Context.current(), call, Call::header);
            return sendUntraced(call, notFoundIsAnAnswer);
        } catch (RuntimeException e) {
            span.setStatus(StatusCode.ERROR, e.getClass().getSimpleName());
            throw e;
        } finally {
            span.end();
        }
    }

    private JsonNode sendUntraced(Call call, boolean notFoundIsAnAnswer) {
        String what = call.what();
        Answer response = exchange(call, what);
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
    String text(JsonNode answer, String name, Call call) {
        JsonNode value = answer.get(name);
        if (value == null || !value.isTextual()) {
            throw new TransientFailure(call.what() + ": answer without \"" + name + "\": " + abbreviate(answer.toString()));
        }
        return value.textValue();
    }

    /** A status and a body read as UTF-8. */
    private record Answer(int status, String body) {}

    private Answer exchange(Call call, String what) {
        long timeoutMs = call.timeoutMs;
        Request request = CLIENT.newRequest(base + call.path).method(call.method)
                .timeout(timeoutMs, TimeUnit.MILLISECONDS);
        request.headers(h -> {
            h.put("Accept", "application/json");
            for (int i = 0; i < call.headers.size(); i += 2) {
                h.add(call.headers.get(i), call.headers.get(i + 1));
            }
        });
        if (call.body != null) {
            request.body(new BytesRequestContent("application/json", call.body));
        }
        try {
            ContentResponse response = request.send();
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
