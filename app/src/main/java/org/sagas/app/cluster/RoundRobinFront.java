package org.sagas.app.cluster;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A small TCP front on a loopback port that hands each connection to the next of several
 * backends in turn, skipping one that refuses (a process that died or is starting again): what a
 * load balancer does in front of the {@code api} processes of a cluster. A connection stays with
 * the backend it got. Thread-safe.
 */
public final class RoundRobinFront implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(RoundRobinFront.class);
    private static final int CONNECT_TIMEOUT_MS = 1_000;

    private final ServerSocket server;
    private final List<Integer> backends;
    private final AtomicInteger next = new AtomicInteger();
    private final Thread acceptor;
    private volatile boolean closed;

    private RoundRobinFront(ServerSocket server, List<Integer> backends) {
        this.server = server;
        this.backends = List.copyOf(backends);
        this.acceptor = new Thread(this::accept, "front-accept");
        acceptor.setDaemon(true);
    }

    /** Listens on 127.0.0.1:{@code port} (0: any free port) in front of {@code backendPorts} on 127.0.0.1. */
    public static RoundRobinFront start(int port, List<Integer> backendPorts) {
        try {
            ServerSocket server = new ServerSocket();
            server.setReuseAddress(true);
            server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 1024);
            RoundRobinFront front = new RoundRobinFront(server, backendPorts);
            front.acceptor.start();
            return front;
        } catch (IOException e) {
            throw new UncheckedIOException("the front cannot listen on port " + port + ": " + e.getMessage(), e);
        }
    }

    public int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!closed) {
            try {
                Socket client = server.accept();
                Thread t = new Thread(() -> serve(client), "front-conn");
                t.setDaemon(true);
                t.start();
            } catch (IOException e) {
                if (!closed) {
                    log.warn("front: accept failed: {}", e.toString());
                }
            }
        }
    }

    private void serve(Socket client) {
        Socket backend = connect();
        if (backend == null) {
            log.warn("front: no backend of {} accepts connections; connection closed", backends);
            closeQuietly(client);
            return;
        }
        Thread back = new Thread(() -> pump(backend, client), "front-pump");
        back.setDaemon(true);
        back.start();
        pump(client, backend);
    }

    /** The next backend that accepts, trying each once. */
    private Socket connect() {
        for (int i = 0; i < backends.size(); i++) {
            int port = backends.get(Math.floorMod(next.getAndIncrement(), backends.size()));
            Socket s = new Socket();
            try {
                s.setTcpNoDelay(true);
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), CONNECT_TIMEOUT_MS);
                return s;
            } catch (IOException refused) {
                closeQuietly(s);
            }
        }
        return null;
    }

    /** Copies {@code from} to {@code to} until either ends, then closes both. */
    private static void pump(Socket from, Socket to) {
        byte[] buffer = new byte[16 * 1024];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException ended) {
            // one side went away: the other is closed below
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private static void closeQuietly(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // closing
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException e) {
            log.warn("front: close failed: {}", e.toString());
        }
    }
}
