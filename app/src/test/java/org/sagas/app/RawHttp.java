package org.sagas.app;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * A plain-socket HTTP/1.1 client that does what careful client libraries avoid: it writes the
 * whole request, however large, before reading a byte of the answer. A server that closes the
 * connection while such a client is still sending makes it see a reset instead of the answer.
 */
final class RawHttp {
    /** An answer as read off the wire; {@code body} is what came before the server closed or Content-Length. */
    record Answer(int status, Map<String, String> headers, String body) {
        String header(String name) {
            return headers.get(name.toLowerCase(Locale.ROOT));
        }
    }

    private RawHttp() {}

    /**
     * Request line and headers (each "Name: value"), then {@code body}; {@code Connection: close}
     * and, unless a Transfer-Encoding is given, Content-Length are added.
     */
    static byte[] request(String requestLine, byte[] body, String... headers) {
        StringBuilder head = new StringBuilder(requestLine).append("\r\nHost: localhost\r\nConnection: close\r\n");
        for (String h : headers) {
            head.append(h).append("\r\n");
        }
        boolean chunked = java.util.Arrays.stream(headers).anyMatch(h -> h.toLowerCase(Locale.ROOT)
                .startsWith("transfer-encoding:"));
        if (body.length > 0 && !chunked) {
            head.append("Content-Length: ").append(body.length).append("\r\n");
        }
        head.append("\r\n");
        byte[] h = head.toString().getBytes(StandardCharsets.ISO_8859_1);
        byte[] all = new byte[h.length + body.length];
        System.arraycopy(h, 0, all, 0, h.length);
        System.arraycopy(body, 0, all, h.length, body.length);
        return all;
    }

    /** Writes all of {@code request}, then reads the answer. */
    static Answer exchange(int port, byte[] request, Duration timeout) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 2000);
            socket.setSoTimeout((int) timeout.toMillis());
            OutputStream out = socket.getOutputStream();
            for (int i = 0; i < request.length; i += 8192) {
                out.write(request, i, Math.min(8192, request.length - i));
            }
            out.flush();
            return read(socket.getInputStream());
        } catch (IOException e) {
            throw new UncheckedIOException("exchange failed: " + e, e);
        }
    }

    static Answer read(InputStream in) throws IOException {
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        int matched = 0;
        while (matched < 4) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("connection closed before the answer's headers; got: " + head);
            }
            head.write(b);
            matched = (b == "\r\n\r\n".charAt(matched)) ? matched + 1 : (b == '\r' ? 1 : 0);
        }
        String[] lines = head.toString(StandardCharsets.ISO_8859_1).split("\r\n");
        int status = Integer.parseInt(lines[0].split(" ")[1]);
        Map<String, String> headers = new LinkedHashMap<>();
        for (int i = 1; i < lines.length; i++) {
            int colon = lines[i].indexOf(':');
            if (colon > 0) {
                headers.put(lines[i].substring(0, colon).trim().toLowerCase(Locale.ROOT),
                        lines[i].substring(colon + 1).trim());
            }
        }
        String length = headers.get("content-length");
        byte[] body = length != null ? in.readNBytes(Integer.parseInt(length)) : in.readAllBytes();
        return new Answer(status, headers, new String(body, StandardCharsets.UTF_8));
    }
}
