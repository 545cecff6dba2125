package org.sagas.orchestrator.http;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.function.Function;
import org.eclipse.jetty.http.HttpHeader;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.thread.Scheduler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reads each request's whole body before the application sees it, holding no thread while the
 * client sends: so admission, in-flight counts and priorities apply only to requests that have
 * arrived, and a client trickling its body costs a buffer, not a worker.
 *
 * <ul>
 *   <li>A body that is not complete after {@link EdgeLimits#slowAfter()} takes one of
 *       {@link EdgeLimits#maxSlowSenders()} slots; with none free it is refused ({@code 503},
 *       connection closed). Clients whose body arrives with its headers never take a slot.
 *   <li>The whole body must arrive within {@code slowAfter + length / minBytesPerSecond}, else
 *       {@code 408} and the connection is closed.
 *   <li>A body over {@link EdgeLimits#maxBodyBytes()} is read and discarded up to
 *       {@link EdgeLimits#drainBytes()} more, then answered {@code 413}, so a client that writes
 *       its whole body before reading gets the answer rather than a reset (as nginx's lingering
 *       close does). A declared length beyond that bound is answered at once and the connection
 *       closed.
 * </ul>
 *
 * <p>Each refusal is reported to {@code refused} by reason. Thread-safe.
 */
final class BodyGate extends Handler.Wrapper {
    private static final Logger log = LoggerFactory.getLogger(BodyGate.class);

    private final EdgeLimits limits;
    private final Consumer<String> refused;
    private final AtomicInteger slowSenders = new AtomicInteger();
    private final Function<Request, OptionalInt> early;
    private static final byte[] OVERLOADED = Problems.bytes(503, "overloaded", "Too many requests in flight",
            "the product is refusing this priority's requests now: more wait than it can serve at speed");

    /** Request attribute: {@link System#nanoTime()} when the request's headers had arrived. */
    static final String ARRIVED_NANOS = "sagas.arrivedNanos";

    BodyGate(EdgeLimits limits, Consumer<String> refused) {
        this(limits, refused, request -> OptionalInt.empty());
    }

    /**
     * @param early for a request whose body has arrived, the {@code Retry-After} seconds of a
     *     {@code 503} to answer at once, before any route runs (admission already refusing everything
     *     of its kind: the cheapest refusal there is), or empty to let it through
     */
    BodyGate(EdgeLimits limits, Consumer<String> refused, Function<Request, OptionalInt> early) {
        this.limits = limits;
        this.refused = refused;
        this.early = early;
    }

    /** Requests now holding a slow-sender slot. */
    int slowSenders() {
        return slowSenders.get();
    }

    @Override
    public boolean handle(Request request, Response response, Callback callback) throws Exception {
        // When the request's headers arrived: admission counts the time from there (ADR 0021).
        request.setAttribute(ARRIVED_NANOS, request.getHeadersNanoTime());
        long length = request.getLength();
        boolean chunked = length < 0 && request.getHeaders().contains(HttpHeader.TRANSFER_ENCODING);
        if (length == 0 || (length < 0 && !chunked)) {
            return super.handle(request, response, callback);
        }
        if (length > limits.maxBodyBytes() + limits.drainBytes()) {
            refused.accept("body-too-large");
            answer(response, callback, 413, "body-too-large", "Request body too large",
                    "the body may be at most " + limits.maxBodyBytes() + " bytes", 0);
            return true;
        }
        new Load(request, response, callback, length).start();
        return true;
    }

    private static void answer(Response response, Callback callback, int status, String type, String title,
            String detail, long retryAfterSeconds) {
        response.setStatus(status);
        response.getHeaders().put(HttpHeader.CONTENT_TYPE, Problems.CONTENT_TYPE);
        // Either the body was not read to its end or the client is misbehaving: do not reuse the connection.
        response.getHeaders().put(HttpHeader.CONNECTION, "close");
        if (retryAfterSeconds > 0) {
            response.getHeaders().put(HttpHeader.RETRY_AFTER, Long.toString(retryAfterSeconds));
        }
        response.write(true, ByteBuffer.wrap(Problems.bytes(status, type, title, detail)), callback);
    }

    /** One request's body on its way in; the demand callback, run whenever more may be read. */
    private final class Load implements Runnable {
        private final Request request;
        private final Response response;
        private final Callback callback;
        private final long declared;
        private final AtomicBoolean finished = new AtomicBoolean();
        private final ByteArrayOutputStream body;
        private long received;
        private final AtomicBoolean slotHeld = new AtomicBoolean();
        private volatile Scheduler.Task slowTask;
        private volatile Scheduler.Task deadlineTask;

        Load(Request request, Response response, Callback callback, long declared) {
            this.request = request;
            this.response = response;
            this.callback = callback;
            this.declared = declared;
            this.body = new ByteArrayOutputStream(declared > 0 ? (int) Math.min(declared, limits.maxBodyBytes()) : 512);
        }

        void start() {
            run();
            if (finished.get()) {
                return; // the body came with its headers, as almost always: no timers to set and cancel
            }
            Scheduler scheduler = request.getComponents().getScheduler();
            long expected = declared > 0 ? declared : limits.maxBodyBytes();
            long allowedMillis = limits.slowAfter().toMillis()
                    + TimeUnit.SECONDS.toMillis(1) * expected / limits.minBytesPerSecond();
            slowTask = scheduler.schedule(this::slowAfterGrace, limits.slowAfter().toMillis(), TimeUnit.MILLISECONDS);
            deadlineTask = scheduler.schedule(this::tooSlow, allowedMillis, TimeUnit.MILLISECONDS);
            if (finished.get()) {
                // Finished while the timers were being set: finish() may have missed them.
                slowTask.cancel();
                deadlineTask.cancel();
            }
        }

        @Override
        public void run() {
            while (!finished.get()) {
                Content.Chunk chunk = request.read();
                if (chunk == null) {
                    request.demand(this);
                    return;
                }
                if (Content.Chunk.isFailure(chunk)) {
                    failed(chunk.getFailure());
                    return;
                }
                boolean last = chunk.isLast();
                take(chunk.getByteBuffer());
                chunk.release();
                if (received > limits.maxBodyBytes() + limits.drainBytes()) {
                    refuse(413, "body-too-large", "Request body too large",
                            "the body may be at most " + limits.maxBodyBytes() + " bytes", 0);
                    return;
                }
                if (last) {
                    complete();
                    return;
                }
            }
        }

        private void take(ByteBuffer buffer) {
            int n = buffer.remaining();
            if (received + n <= limits.maxBodyBytes()) {
                byte[] bytes = new byte[n];
                buffer.get(bytes);
                body.write(bytes, 0, n);
            } else {
                buffer.position(buffer.limit()); // over the limit: read on, keep nothing
            }
            received += n;
        }

        private void complete() {
            if (!finish()) {
                return;
            }
            if (received > limits.maxBodyBytes()) {
                refused.accept("body-too-large");
                answer(response, callback, 413, "body-too-large", "Request body too large",
                        "the body may be at most " + limits.maxBodyBytes() + " bytes", 0);
                return;
            }
            // Read whole first: a connection whose request was left unread is closed after the answer,
            // and a client reusing it meanwhile gets nothing back.
            OptionalInt refuseNow = early.apply(request);
            if (refuseNow.isPresent()) {
                refused.accept("overloaded");
                response.setStatus(503);
                response.getHeaders().put(HttpHeader.CONTENT_TYPE, Problems.CONTENT_TYPE);
                response.getHeaders().put(HttpHeader.RETRY_AFTER, Integer.toString(refuseNow.getAsInt()));
                response.write(true, ByteBuffer.wrap(OVERLOADED), callback);
                return;
            }
            byte[] bytes = body.toByteArray();
            Request buffered = new Request.Wrapper(request) {
                private Content.Chunk next = Content.Chunk.from(ByteBuffer.wrap(bytes), true);

                @Override
                public Content.Chunk read() {
                    Content.Chunk chunk = next;
                    next = Content.Chunk.EOF;
                    return chunk;
                }

                @Override
                public void demand(Runnable demandCallback) {
                    demandCallback.run(); // the whole body is here: always readable
                }
            };
            try {
                if (!BodyGate.super.handle(buffered, response, callback)) {
                    Response.writeError(buffered, response, callback, 404);
                }
            } catch (Throwable e) {
                Response.writeError(buffered, response, callback, e);
            }
        }

        private void slowAfterGrace() {
            if (finished.get()) {
                return;
            }
            if (slowSenders.incrementAndGet() > limits.maxSlowSenders()) {
                slowSenders.decrementAndGet();
                refuse(503, "too-many-slow-senders", "Too many slow requests",
                        "the server is receiving too many request bodies slowly; send the body with its headers",
                        1);
                return;
            }
            slotHeld.set(true);
            if (finished.get()) {
                releaseSlot(); // finished while we took it
            }
        }

        private void tooSlow() {
            refuse(408, "request-timeout", "Request body too slow",
                    "the body must arrive at " + limits.minBytesPerSecond() + " bytes per second at least", 0);
        }

        private void failed(Throwable failure) {
            if (!finish()) {
                return;
            }
            if (failure instanceof TimeoutException) {
                refused.accept("request-timeout");
                answer(response, callback, 408, "request-timeout", "Request body too slow",
                        "no part of the body arrived within the idle timeout", 0);
            } else {
                log.debug("reading a request body failed: {}", failure.toString());
                callback.failed(failure);
            }
        }

        private void refuse(int status, String type, String title, String detail, long retryAfterSeconds) {
            if (finish()) {
                refused.accept(type);
                answer(response, callback, status, type, title, detail, retryAfterSeconds);
            }
        }

        /** True for the one caller that ends this load; cancels its timers and gives its slot back. */
        private boolean finish() {
            if (!finished.compareAndSet(false, true)) {
                return false;
            }
            if (slowTask != null) {
                slowTask.cancel();
            }
            if (deadlineTask != null) {
                deadlineTask.cancel();
            }
            releaseSlot();
            return true;
        }

        private void releaseSlot() {
            if (slotHeld.compareAndSet(true, false)) {
                slowSenders.decrementAndGet();
            }
        }
    }
}
