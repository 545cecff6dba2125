package org.sagas.testkit.fuzz;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * Sends one {@link HostileRequest} over a plain socket, the whole request before reading a byte,
 * and tells whether the API refused it as it must: a {@code 4xx} answer, read in full.
 */
public final class FuzzClient {
    /** The status answered (0 if none), or the I/O failure that kept the client from reading it. */
    public record Outcome(HostileRequest request, int status, String failure) {
        public boolean refusedProperly() {
            return failure == null && status >= 400 && status < 500;
        }
    }

    private FuzzClient() {}

    public static Outcome send(String host, int port, HostileRequest request, Duration timeout) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), (int) timeout.toMillis());
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            out.write(request.bytes());
            out.flush();
            InputStream in = socket.getInputStream();
            String answer = new String(in.readAllBytes(), StandardCharsets.ISO_8859_1); // Connection: close
            if (!answer.startsWith("HTTP/1.1 ")) {
                return new Outcome(request, 0, "no HTTP answer: '" + abbreviate(answer) + "'");
            }
            return new Outcome(request, Integer.parseInt(answer.substring(9, 12)), null);
        } catch (IOException | RuntimeException e) {
            return new Outcome(request, 0, e.toString());
        }
    }

    private static String abbreviate(String text) {
        return text.length() > 80 ? text.substring(0, 80) + "…" : text;
    }
}
