package org.sagas.reconciler;

import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.sagas.orchestrator.Json;

/**
 * Reads the stored findings for {@code GET /admin/reconciliation/findings?kind=&open=&limit=}:
 * newest first, answered as {@code {"items":[{"findingId","kind","state","orderId","subject",
 * "detail","action","repairKey","repair","openedAt","resolvedAt"}]}}. {@code repair} says what
 * became of the automatic repair: {@code REQUESTED}, {@code SKIPPED} (the order's status forbade
 * it) or {@code NONE}. Thread-safe.
 */
public final class FindingsReader {
    public static final int DEFAULT_LIMIT = 100;
    public static final int MAX_LIMIT = 1_000;

    private final Jdbi jdbi;

    public FindingsReader(Jdbi jdbi) {
        this.jdbi = jdbi;
    }

    /** One finding as the admin API shows it. */
    public record View(UUID findingId, String kind, String state, String orderId, String subject, String detail,
            String action, String repairKey, String repair, Instant openedAt, Instant resolvedAt) {}

    /** The answer's body. */
    public record Page(List<View> items) {
        public String toJson() {
            return Json.write(this);
        }
    }

    /**
     * The findings matching the query parameters as given (null or blank: no filter).
     *
     * @param kind one of {@link FindingKind}
     * @param open {@code true} (open only) or {@code false} (resolved only)
     * @param limit 1 to {@value #MAX_LIMIT}; null for {@value #DEFAULT_LIMIT}
     * @throws IllegalArgumentException naming the parameter, for a value out of its range (answer 400)
     */
    public Page list(String kind, String open, String limit) {
        FindingKind k = kind(kind);
        Boolean onlyOpen = open(open);
        int n = limit(limit);
        return new Page(jdbi.withHandle(h -> h.createQuery("SELECT finding_id, kind, state, order_id, subject, detail,"
                        + " action, repair_key, repair, opened_at, resolved_at FROM reconciliation_finding"
                        + " WHERE (:kind IS NULL OR kind = :kind) AND (:state IS NULL OR state = :state)"
                        + " ORDER BY opened_at DESC, finding_id LIMIT :limit")
                .bind("kind", k == null ? null : k.name())
                .bind("state", onlyOpen == null ? null : onlyOpen ? "OPEN" : "RESOLVED")
                .bind("limit", n)
                .map((rs, ctx) -> new View(rs.getObject("finding_id", UUID.class), rs.getString("kind"),
                        rs.getString("state"), rs.getString("order_id"), rs.getString("subject"), rs.getString("detail"),
                        rs.getString("action"), rs.getString("repair_key"), rs.getString("repair"),
                        rs.getTimestamp("opened_at").toInstant(), rs.getTimestamp("resolved_at") == null ? null
                                : rs.getTimestamp("resolved_at").toInstant()))
                .list()));
    }

    /** Open findings per kind (kinds with none left out), for the console's overview. */
    public java.util.Map<String, Long> openCounts() {
        return jdbi.withHandle(h -> {
            java.util.Map<String, Long> counts = new java.util.TreeMap<>();
            h.createQuery("SELECT kind, count(*) FROM reconciliation_finding WHERE state = 'OPEN' GROUP BY kind")
                    .map((rs, ctx) -> java.util.Map.entry(rs.getString(1), rs.getLong(2)))
                    .forEach(e -> counts.put(e.getKey(), e.getValue()));
            return counts;
        });
    }

    private static FindingKind kind(String kind) {
        if (kind == null || kind.isBlank()) {
            return null;
        }
        try {
            return FindingKind.valueOf(kind.trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("kind must be one of " + List.of(FindingKind.values()) + " (got '"
                    + kind + "')");
        }
    }

    private static Boolean open(String open) {
        if (open == null || open.isBlank()) {
            return null;
        }
        if (open.equalsIgnoreCase("true") || open.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(open);
        }
        throw new IllegalArgumentException("open must be true or false (got '" + open + "')");
    }

    private static int limit(String limit) {
        if (limit == null || limit.isBlank()) {
            return DEFAULT_LIMIT;
        }
        try {
            int n = Integer.parseInt(limit.trim());
            if (n >= 1 && n <= MAX_LIMIT) {
                return n;
            }
        } catch (NumberFormatException e) {
            // falls through to the error naming the range
        }
        throw new IllegalArgumentException("limit must be an integer from 1 to " + MAX_LIMIT + " (got '" + limit
                + "')");
    }
}
