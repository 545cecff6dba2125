package org.sagas.app;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Hostile slow clients on one thread: {@code slowloris} connections that send their headers a
 * line at a time and never finish them, and {@code slowBodies} order submissions (claiming
 * {@code X-Priority: high}) that send complete headers and then their body a byte at a time. A
 * connection the server closes is opened again at once, so the pressure stays.
 */
final class SlowClients implements AutoCloseable {
    private final int port;
    private final SocketChannel[] channels;
    private final boolean[] loris;
    private final Thread thread;
    private final AtomicInteger opened = new AtomicInteger();
    private final AtomicInteger closedByServer = new AtomicInteger();
    private volatile boolean running = true;

    SlowClients(int port, int slowloris, int slowBodies) {
        this.port = port;
        this.channels = new SocketChannel[slowloris + slowBodies];
        this.loris = new boolean[channels.length];
        for (int i = 0; i < slowloris; i++) {
            loris[i] = true;
        }
        this.thread = new Thread(this::run, "slow-clients");
        thread.setDaemon(true);
        thread.start();
    }

    /** Connections opened so far, reopenings included. */
    int opened() {
        return opened.get();
    }

    /** Connections the server answered or closed. */
    int closedByServer() {
        return closedByServer.get();
    }

    private void run() {
        ByteBuffer sink = ByteBuffer.allocate(4096);
        long tick = 0;
        while (running) {
            for (int i = 0; i < channels.length && running; i++) {
                try {
                    if (channels[i] == null) {
                        channels[i] = open(loris[i]);
                        continue;
                    }
                    sink.clear();
                    if (channels[i].read(sink) != 0) { // an answer or a close: the server is done with it
                        closedByServer.incrementAndGet();
                        closeQuietly(channels[i]);
                        channels[i] = null;
                        continue;
                    }
                    String drip = loris[i] ? "X-Drip-" + tick + ": 1\r\n" : " ";
                    channels[i].write(ByteBuffer.wrap(drip.getBytes(StandardCharsets.ISO_8859_1)));
                } catch (IOException e) {
                    closedByServer.incrementAndGet();
                    closeQuietly(channels[i]);
                    channels[i] = null;
                }
            }
            tick++;
            try {
                Thread.sleep(500); // the attackers' pace, not synchronisation
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private SocketChannel open(boolean slowloris) throws IOException {
        SocketChannel channel = SocketChannel.open(new InetSocketAddress("127.0.0.1", port));
        channel.configureBlocking(false);
        opened.incrementAndGet();
        String start = slowloris
                ? "POST /orders HTTP/1.1\r\nHost: localhost\r\n"
                : "POST /orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nX-Priority: high\r\n"
                        + "Idempotency-Key: slow-" + opened.get() + "\r\nContent-Length: 4000\r\n\r\n{";
        channel.write(ByteBuffer.wrap(start.getBytes(StandardCharsets.ISO_8859_1)));
        return channel;
    }

    private static void closeQuietly(SocketChannel channel) {
        try {
            channel.close();
        } catch (IOException ignored) {
            // already gone
        }
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5000);
        for (SocketChannel channel : channels) {
            if (channel != null) {
                closeQuietly(channel);
            }
        }
    }
}
