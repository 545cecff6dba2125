package org.sagas.orchestrator.ordering;

import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Base64;
import java.util.UUID;

/**
 * A position in a list of orders ordered by (creation time, order id) — the order id is the saga's
 * id: a keyset, so a page starts right after the last one whatever arrived meanwhile. Its text form
 * is opaque to clients. Immutable.
 */
public record OrderCursor(Instant createdAt, UUID orderId) {
    public OrderCursor {
        // PostgreSQL keeps microseconds: a finer cursor would not compare equal to its own row.
        createdAt = createdAt.truncatedTo(ChronoUnit.MICROS);
    }

    public String encode() {
        long micros = ChronoUnit.MICROS.between(Instant.EPOCH, createdAt);
        return Base64.getUrlEncoder().withoutPadding()
                .encodeToString((micros + "_" + orderId).getBytes(StandardCharsets.UTF_8));
    }

    /** @throws IllegalArgumentException when {@code text} is not a cursor this class wrote */
    public static OrderCursor decode(String text) {
        try {
            String plain = new String(Base64.getUrlDecoder().decode(text), StandardCharsets.UTF_8);
            int cut = plain.indexOf('_');
            long micros = Long.parseLong(plain.substring(0, cut));
            return new OrderCursor(Instant.EPOCH.plus(micros, ChronoUnit.MICROS), UUID.fromString(plain.substring(cut + 1)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("not a cursor from a previous page: " + text, e);
        }
    }
}
