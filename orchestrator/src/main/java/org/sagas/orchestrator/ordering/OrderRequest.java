package org.sagas.orchestrator.ordering;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.List;
import org.sagas.orchestrator.Json;

/** A validated order submission. */
public record OrderRequest(String customerId, String currency, List<OrderLine> lines) {
    public OrderRequest {
        lines = List.copyOf(lines);
    }

    public long totalCents() {
        return lines.stream().mapToLong(OrderLine::totalCents).sum();
    }

    /** A digest of the request's content: equal requests hash equal whatever their JSON layout. */
    public String hash() {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(Json.write(this).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 missing from this JDK", e);
        }
    }
}
