package org.sagas.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Finds free TCP ports on the loopback interface. Thread-safe.
 *
 * <p>A port is handed out now and bound later, by this process or a child. Below the kernel's
 * ephemeral range, the one outgoing connections take their local ports from, no client connection
 * of any process on the machine can take it in between (one did: two test JVMs, each with its
 * brokers and clients, made a sandbox's port "already in use"). Where that range cannot be read,
 * or leaves no room below it, the kernel picks, as before.
 */
public final class FreePorts {
    private static final int LOWEST = 10_000;
    /** Handed out by this process: not handed out again, even before it is bound. */
    private static final Set<Integer> GIVEN = ConcurrentHashMap.newKeySet();
    private static final int EPHEMERAL_LOW = ephemeralLow();

    private FreePorts() {}

    public static int find() {
        if (EPHEMERAL_LOW - LOWEST >= 1_000) {
            for (int tries = 0; tries < 200; tries++) {
                int port = ThreadLocalRandom.current().nextInt(LOWEST, EPHEMERAL_LOW);
                if (!GIVEN.contains(port) && isFree(port) && GIVEN.add(port)) {
                    return port;
                }
            }
        }
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new UncheckedIOException("no free port on loopback", e);
        }
    }

    /** True when nothing listens on {@code port} on the loopback interface. */
    public static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The lowest port of the kernel's ephemeral range (Linux), or 0 when it cannot be read. */
    static int ephemeralLow() {
        // Read as a stream: Files.readString trusts the size /proc reports and returned "3" of
        // "32768 60999", so every port came from the kernel's ephemeral range after all (a sandbox's
        // port was handed out twice in one JVM, full12 of 2026-12-04).
        try (java.io.BufferedReader reader = Files.newBufferedReader(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))) {
            String range = reader.readLine();
            return range == null ? 0 : Integer.parseInt(range.strip().split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
