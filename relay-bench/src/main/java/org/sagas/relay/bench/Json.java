package org.sagas.relay.bench;

import java.util.Iterator;
import java.util.Map;

/** Writes the benchmark's flat result map as JSON (numbers, booleans and strings only). */
final class Json {
    private Json() {}

    static String write(Map<String, Object> values) {
        StringBuilder out = new StringBuilder("{\n");
        Iterator<Map.Entry<String, Object>> it = values.entrySet().iterator();
        while (it.hasNext()) {
            Map.Entry<String, Object> e = it.next();
            out.append("  ").append(quote(e.getKey())).append(": ").append(value(e.getValue()));
            out.append(it.hasNext() ? ",\n" : "\n");
        }
        return out.append("}\n").toString();
    }

    private static String value(Object v) {
        if (v == null) {
            return "null";
        }
        if (v instanceof Double d && (d.isNaN() || d.isInfinite())) {
            return "null";
        }
        if (v instanceof Number || v instanceof Boolean) {
            return v.toString();
        }
        return quote(v.toString());
    }

    private static String quote(String s) {
        StringBuilder q = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> q.append("\\\"");
                case '\\' -> q.append("\\\\");
                case '\n' -> q.append("\\n");
                default -> {
                    if (c < 0x20) {
                        q.append(String.format("\\u%04x", (int) c));
                    } else {
                        q.append(c);
                    }
                }
            }
        }
        return q.append('"').toString();
    }
}
