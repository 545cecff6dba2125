package org.sagas.testkit.fuzz;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Makes requests the orders API must refuse: hostile bodies (deep nesting, huge numbers, unicode
 * edge cases — lone and paired surrogates, combining marks, NUL, RTL and zero-width marks, a BOM,
 * invalid UTF-8 — duplicate keys, wrong types, unknown fields, broken JSON), hostile headers
 * (idempotency keys with controls or non-ASCII bytes, malformed deadlines and priorities) and
 * hostile paths and queries. Every decision comes from {@link Choices}. Stateless.
 */
public final class HostileRequests {
    private static final String[] ODD_TEXT = {
        "\\ud800",                 // a lone high surrogate, escaped
        "\\udc00x",                // a lone low surrogate
        "\uD83D\uDE00",            // an emoji: a valid surrogate pair, not an identifier
        "e\u0301",                 // e + combining acute accent
        "\\u0000",                 // NUL, escaped
        "a\u200Fb",                // right-to-left mark
        "a\u202Eb",                // right-to-left override
        "a\u200Db",                // zero-width joiner
        "\uFEFFc-1",               // byte order mark
        " ",                       // blank
        "c 1",                     // a space
        "tab\\there",              // a control character, escaped
        "x".repeat(65),            // one too long
        "",                        // empty
    };

    private HostileRequests() {}

    /** The next hostile request; {@code authorization} is added as is when not null. */
    public static HostileRequest next(Choices c, String authorization) {
        List<String[]> headers = new ArrayList<>();
        if (authorization != null) {
            headers.add(new String[] {"Authorization", authorization});
        }
        return switch (c.next(3)) {
            case 0 -> body(c, headers);
            case 1 -> header(c, headers);
            default -> path(c, headers);
        };
    }

    private static HostileRequest body(Choices c, List<String[]> headers) {
        headers.add(new String[] {"Idempotency-Key", "fuzz-" + UUID.randomUUID()});
        String line = "{\"sku\":\"SKU-F\",\"quantity\":1,\"unitPriceCents\":100}";
        String kind;
        String json;
        switch (c.next(11)) {
            case 0 -> {
                int depth = 17 + c.next(5000);
                kind = "nesting " + depth;
                json = "{\"customerId\":\"fuzz\",\"currency\":\"EUR\",\"lines\":" + "[".repeat(depth) + "]".repeat(depth) + "}";
            }
            case 1 -> {
                // Out of range or not an integer for both fields; 0 is a valid price, so it is hostile only as a quantity.
                String[] numbers = {"1e400", "123456789012345678901234567890", "-1", "1.5", "1E2", "9".repeat(1000),
                        "NaN", "Infinity", "0x10", "1000000000001", "-9223372036854775809", "1.0"};
                boolean quantity = c.next(2) == 0;
                String n = quantity && c.next(4) == 0 ? new String[] {"0", "-0", "10001"}[c.next(3)]
                        : numbers[c.next(numbers.length)];
                kind = "number " + (n.length() > 20 ? n.substring(0, 20) + "…" : n);
                json = order("fuzz", quantity
                        ? "{\"sku\":\"SKU-F\",\"quantity\":" + n + ",\"unitPriceCents\":100}"
                        : "{\"sku\":\"SKU-F\",\"quantity\":1,\"unitPriceCents\":" + n + "}");
            }
            case 2 -> {
                String odd = ODD_TEXT[c.next(ODD_TEXT.length)];
                boolean inSku = c.next(2) == 1;
                kind = "text in " + (inSku ? "sku" : "customerId");
                json = inSku ? order("fuzz", "{\"sku\":\"" + odd + "\",\"quantity\":1,\"unitPriceCents\":100}")
                        : order(odd, line);
            }
            case 3 -> {
                kind = "duplicate key";
                String[] dups = {
                    "{\"customerId\":\"fuzz\",\"customerId\":\"other\",\"currency\":\"EUR\",\"lines\":[" + line + "]}",
                    "{\"customerId\":\"fuzz\",\"currency\":\"EUR\",\"lines\":[{\"sku\":\"S\",\"sku\":\"T\",\"quantity\":1,\"unitPriceCents\":1}]}",
                    "{\"customerId\":\"fuzz\",\"currency\":\"EUR\",\"currency\":\"USD\",\"lines\":[" + line + "]}",
                };
                json = dups[c.next(dups.length)];
            }
            case 4 -> {
                // no strings here: a string is the right type for the ids (a quoted number has its own case)
                String[] wrong = {"1", "true", "null", "[\"x\"]", "{\"a\":1}", "1.0", "false"};
                String value = wrong[c.next(wrong.length)];
                String[] targets = {
                    "{\"customerId\":" + value + ",\"currency\":\"EUR\",\"lines\":[" + line + "]}",
                    "{\"customerId\":\"fuzz\",\"currency\":" + value + ",\"lines\":[" + line + "]}",
                    "{\"customerId\":\"fuzz\",\"currency\":\"EUR\",\"lines\":" + value + "}",
                    "{\"customerId\":\"fuzz\",\"currency\":\"EUR\",\"lines\":[" + value + "]}",
                    order("fuzz", "{\"sku\":" + value + ",\"quantity\":1,\"unitPriceCents\":100}"),
                    order("fuzz", "{\"sku\":\"S\",\"quantity\":\"1\",\"unitPriceCents\":100}"),
                };
                kind = "wrong type " + value;
                json = targets[c.next(targets.length)];
            }
            case 5 -> {
                kind = "unknown field";
                json = "{\"customerId\":\"fuzz\",\"currency\":\"EUR\",\"lines\":[" + line + "],\"admin\":true}";
            }
            case 6 -> {
                String[] broken = {"", "{", "{\"customerId\":\"fuzz\"", order("fuzz", line) + "{}", order("fuzz", line) + " x",
                        "[]", "\"order\"", "null", "{\"customerId\":\"fuzz\",}", "{'customerId':'fuzz'}"};
                kind = "broken JSON";
                json = broken[c.next(broken.length)];
            }
            case 7 -> {
                kind = "too many lines";
                json = order("fuzz", (line + ",").repeat(100) + line);
            }
            case 8 -> {
                kind = "no lines or bad currency";
                String[] bad = {order("fuzz", "").replace("[]", "[]"), "{\"customerId\":\"fuzz\",\"currency\":\"eur\",\"lines\":[" + line + "]}",
                        "{\"customerId\":\"fuzz\",\"currency\":\"EURO\",\"lines\":[" + line + "]}",
                        "{\"currency\":\"EUR\",\"lines\":[" + line + "]}"};
                json = bad[c.next(bad.length)];
            }
            case 9 -> {
                kind = "invalid UTF-8";
                byte[] prefix = "{\"customerId\":\"fu".getBytes(StandardCharsets.UTF_8);
                byte[][] bytes = {{(byte) 0xC3}, {(byte) 0xFF, (byte) 0xFE}, {(byte) 0xED, (byte) 0xA0, (byte) 0x80},
                        {0}, {(byte) 0xC0, (byte) 0xAF}};
                byte[] odd = bytes[c.next(bytes.length)];
                byte[] suffix = ("zz\",\"currency\":\"EUR\",\"lines\":[" + line + "]}").getBytes(StandardCharsets.UTF_8);
                byte[] all = new byte[prefix.length + odd.length + suffix.length];
                System.arraycopy(prefix, 0, all, 0, prefix.length);
                System.arraycopy(odd, 0, all, prefix.length, odd.length);
                System.arraycopy(suffix, 0, all, prefix.length + odd.length, suffix.length);
                return HostileRequest.of(kind, "POST", "/orders", headers, all);
            }
            default -> {
                kind = "huge string";
                json = order("x".repeat(1000 + c.next(60_000)), line);
            }
        }
        return HostileRequest.of("body: " + kind, "POST", "/orders", headers, json.getBytes(StandardCharsets.UTF_8));
    }

    private static HostileRequest header(Choices c, List<String[]> headers) {
        byte[] body = order("fuzz", "{\"sku\":\"SKU-F\",\"quantity\":1,\"unitPriceCents\":100}")
                .getBytes(StandardCharsets.UTF_8);
        String kind;
        switch (c.next(4)) {
            case 0 -> {
                kind = "no idempotency key";
            }
            case 1 -> {
                String[] keys = {"k\u0000ey", "k\u0001", "ключ-" + UUID.randomUUID(), "k\u200Fey", "k e y",
                        "k".repeat(256), "\uD83D\uDE00" + UUID.randomUUID(), "k\u007f"};
                String key = keys[c.next(keys.length)];
                kind = "idempotency key";
                headers.add(new String[] {"Idempotency-Key", key});
            }
            case 2 -> {
                String[] deadlines = {"soon", "-1", "0", "1e12", "99999999999999999999", "12 34", "0x10", ""
                        + Long.MIN_VALUE, "1.5"};
                kind = "deadline";
                headers.add(new String[] {"Idempotency-Key", "fuzz-" + UUID.randomUUID()});
                headers.add(new String[] {"X-Deadline", deadlines[c.next(deadlines.length)]});
            }
            default -> {
                String[] priorities = {"urgent", "HIGH!", "1", "h\u0000igh", "highest", "\u202Ehigh"};
                kind = "priority";
                headers.add(new String[] {"Idempotency-Key", "fuzz-" + UUID.randomUUID()});
                headers.add(new String[] {"X-Priority", priorities[c.next(priorities.length)]});
            }
        }
        return HostileRequest.of("header: " + kind, "POST", "/orders", headers, body);
    }

    private static HostileRequest path(Choices c, List<String[]> headers) {
        String[] targets = {"/orders/not-a-uuid", "/orders/..%2f..%2fetc%2fpasswd", "/orders/%00",
                "/orders/" + UUID.randomUUID() + "%00", "/orders/%E2%80%AE" + UUID.randomUUID(),
                "/orders?limit=-1", "/orders?limit=1e9", "/orders?limit=99999999999", "/orders?status=%E2%80%AE",
                "/orders?status=PENDING%00", "/orders/" + "a".repeat(9000), "/orders/%F0%9F%98%80",
                "/../../../etc/passwd", "/orders/%ZZ", "/orders?limit=1&limit=x", "/admin/../orders/x",
                "/orders/" + UUID.randomUUID() + "/../x"};
        String target = targets[c.next(targets.length)];
        return HostileRequest.of("path: " + (target.length() > 60 ? target.substring(0, 60) + "…" : target), "GET",
                target, headers, new byte[0]);
    }

    private static String order(String customerId, String lines) {
        return "{\"customerId\":\"" + customerId + "\",\"currency\":\"EUR\",\"lines\":[" + lines + "]}";
    }
}
