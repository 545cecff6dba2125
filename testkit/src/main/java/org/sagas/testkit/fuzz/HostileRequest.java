package org.sagas.testkit.fuzz;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * One request the API must refuse with a 4xx and store nothing for.
 *
 * @param kind what is hostile about it, for reports
 * @param head request line and headers as raw bytes (they may hold bytes no HTTP library would send)
 */
public record HostileRequest(String kind, byte[] head, byte[] body) {
    static HostileRequest of(String kind, String method, String target, List<String[]> headers, byte[] body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        write(out, method + " " + target + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n");
        for (String[] h : headers) {
            write(out, h[0] + ": ");
            out.writeBytes(h[1].getBytes(StandardCharsets.UTF_8));
            write(out, "\r\n");
        }
        if (body.length > 0) {
            write(out, "Content-Type: application/json\r\nContent-Length: " + body.length + "\r\n");
        }
        write(out, "\r\n");
        return new HostileRequest(kind, out.toByteArray(), body);
    }

    private static void write(ByteArrayOutputStream out, String text) {
        out.writeBytes(text.getBytes(StandardCharsets.UTF_8));
    }

    /** The whole request as sent. */
    public byte[] bytes() {
        byte[] all = new byte[head.length + body.length];
        System.arraycopy(head, 0, all, 0, head.length);
        System.arraycopy(body, 0, all, head.length, body.length);
        return all;
    }

    @Override
    public String toString() {
        String text = new String(bytes(), StandardCharsets.UTF_8);
        return kind + ": " + (text.length() > 400 ? text.substring(0, 400) + "… (" + text.length() + " chars)" : text)
                .replace("\r\n", "⏎");
    }
}
