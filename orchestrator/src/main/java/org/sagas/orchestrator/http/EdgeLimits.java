package org.sagas.orchestrator.http;

import io.javalin.config.JavalinConfig;
import java.time.Duration;
import java.util.OptionalInt;
import java.util.function.Consumer;
import java.util.function.Function;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.HttpConnectionFactory;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;

/**
 * What a listener tolerates from slow or oversized clients, and the one place that puts it on a
 * Javalin/Jetty server: idle timeout, minimum request data rate, header size, and problem+json
 * answers for requests Jetty refuses before any route sees them. Immutable.
 *
 * @param idleTimeout a connection that sends nothing for this long is closed
 * @param minBytesPerSecond a request body must arrive at least this fast (after {@code slowAfter})
 * @param slowAfter a body not complete after this counts as a slow sender
 * @param maxSlowSenders most requests at once whose body is still arriving after {@code slowAfter}
 * @param maxBodyBytes largest body a route accepts ({@code 413} beyond)
 * @param drainBytes how much more of an over-limit body is read (and discarded) before answering
 */
public record EdgeLimits(Duration idleTimeout, long minBytesPerSecond, Duration slowAfter, int maxSlowSenders,
        int maxBodyBytes, long drainBytes) {
    /** Request line and headers together; Jetty answers 431 (or 414 for the URI) beyond. */
    public static final int MAX_HEADER_BYTES = 8 * 1024;
    public static final long DEFAULT_DRAIN_BYTES = 1024 * 1024;

    public EdgeLimits {
        if (idleTimeout.isNegative() || idleTimeout.isZero() || minBytesPerSecond < 1 || maxSlowSenders < 0
                || maxBodyBytes < 1 || drainBytes < 0 || slowAfter.isNegative()) {
            throw new IllegalArgumentException("invalid edge limits: " + idleTimeout + ", " + minBytesPerSecond
                    + " B/s, " + slowAfter + ", " + maxSlowSenders + " slow senders, " + maxBodyBytes + " B, "
                    + drainBytes + " B drained");
        }
    }

    /** The public API's defaults: 30 s idle, 1 KiB/s, slow after 1 s, 64 slow senders, 64 KiB bodies. */
    public static EdgeLimits defaults() {
        return new EdgeLimits(Duration.ofSeconds(30), 1024, Duration.ofSeconds(1), 64, 64 * 1024,
                DEFAULT_DRAIN_BYTES);
    }

    /**
     * Puts these limits on {@code config}'s listener: header size, idle timeout, problem+json for
     * what Jetty refuses itself (bad request lines, headers too large, URI too long). Call {@link
     * #applyIdleTimeout(Server)} once the server has started. The minimum data rate is {@link
     * BodyGate}'s to apply ({@link #gateBodies}), not Jetty's: Jetty measures it from the headers'
     * arrival to whenever the application reads, so a small body that had arrived whole was
     * refused {@code 408} when the route read it after a second of the product's own queueing
     * (seen on a loaded machine); the gate measures the body's own arrival.
     */
    public void apply(JavalinConfig config) {
        config.jetty.modifyHttpConfiguration(http -> {
            http.setRequestHeaderSize(MAX_HEADER_BYTES);
            http.setIdleTimeout(idleTimeout.toMillis());
            http.setSendServerVersion(false);
        });
        config.jetty.modifyServer(server -> server.setErrorHandler(new ProblemErrorHandler()));
    }

    /**
     * Connections waiting to be accepted at most ({@code listen} backlog). The JVM's default of 50
     * overflows when a burst of clients connects while the cores are busy: the kernel then drops
     * their SYNs and each retries after 1, 3, 7 s, so a client waits seconds before the product
     * has even seen it (measured at three times capacity: answer p50 1.8 s, all of it there).
     */
    static final int ACCEPT_QUEUE = 1024;

    /**
     * Listens on {@code host:port} (0: any free port) through a connector of these limits, with
     * an accept queue of {@value #ACCEPT_QUEUE}: Javalin then makes no connector of its own.
     */
    public void listen(JavalinConfig config, String host, int port) {
        config.jetty.addConnector((server, http) -> {
            ServerConnector connector = new ServerConnector(server, new HttpConnectionFactory(http));
            connector.setHost(host);
            connector.setPort(port);
            connector.setAcceptQueueSize(ACCEPT_QUEUE);
            connector.setIdleTimeout(idleTimeout.toMillis());
            return connector;
        });
    }

    /** Javalin makes its connector at start: the idle timeout goes on it afterwards. */
    public void applyIdleTimeout(Server server) {
        for (Connector connector : server.getConnectors()) {
            if (connector instanceof ServerConnector serverConnector) {
                serverConnector.setIdleTimeout(idleTimeout.toMillis());
            }
        }
    }

    /**
     * A gate that reads each body before the application, within these limits (see {@link BodyGate}),
     * reporting each refusal's reason to {@code refused}. Every listener with routes that read a body
     * puts it on: the public API and the operator API alike.
     */
    public void gateBodies(JavalinConfig config, Consumer<String> refused) {
        gateBodies(config, refused, request -> OptionalInt.empty());
    }

    /** The same, refusing at once what {@code early} says to (see {@link BodyGate}). */
    void gateBodies(JavalinConfig config, Consumer<String> refused, Function<Request, OptionalInt> early) {
        config.jetty.modifyServer(server -> server.setHandler(new BodyGate(this, refused, early)));
    }
}
