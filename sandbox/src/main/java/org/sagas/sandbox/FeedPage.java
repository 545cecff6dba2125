package org.sagas.sandbox;

import io.javalin.http.Context;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A page of a participant's change feed ({@code GET /charges?since=&limit=},
 * {@code GET /reservations?since=&limit=}): {@code {"items":[…],"nextCursor":"…"}}. Each item
 * carries its own {@code cursor}; a reader passes the last one it kept as {@code since} and gets
 * what changed after it. A row changed again reappears later with its new state and a new cursor.
 * The cursor is opaque to readers ({@code <transaction id>.<sequence>} inside).
 */
record FeedPage<T>(List<T> items, String nextCursor) {
    static final String START = "0.0";
    static final int DEFAULT_LIMIT = 100;
    static final int MAX_LIMIT = 1_000;
    private static final Pattern CURSOR = Pattern.compile("(\\d{1,19})\\.(\\d{1,19})");

    /** Where a listing starts: after the row at ({@code xid}, {@code seq}). */
    record After(String xid, long seq, int limit) {}

    /** True when the request asks for the feed (has {@code since}, possibly empty). */
    static boolean asked(Context ctx) {
        return ctx.queryParamMap().containsKey("since");
    }

    /** @throws Problem 400 for a malformed cursor or a limit out of range */
    static After after(Context ctx) {
        String since = ctx.queryParam("since");
        String cursor = since == null || since.isBlank() ? START : since.trim();
        Matcher m = CURSOR.matcher(cursor);
        if (!m.matches()) {
            throw Problem.invalid("since", "not a cursor this feed gave out (" + cursor + ")");
        }
        long seq;
        try {
            Long.parseUnsignedLong(m.group(1));
            seq = Long.parseLong(m.group(2));
        } catch (NumberFormatException e) {
            throw Problem.invalid("since", "not a cursor this feed gave out (" + cursor + ")");
        }
        String limitParam = ctx.queryParam("limit");
        int limit = DEFAULT_LIMIT;
        if (limitParam != null && !limitParam.isBlank()) {
            try {
                limit = Integer.parseInt(limitParam.trim());
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_LIMIT) {
                throw Problem.invalid("limit", "must be an integer from 1 to " + MAX_LIMIT);
            }
        }
        return new After(m.group(1), seq, limit);
    }

    static String cursor(String xid, long seq) {
        return xid + "." + seq;
    }

    /**
     * The rows of a change-stamped table after {@code after}, among those whose transaction ended
     * before the oldest transaction still running (see migration V8): no row can later appear below
     * the last one listed.
     */
    static String where() {
        return " (change_xid, change_seq) > (CAST(? AS xid8), ?)"
                + " AND change_xid < pg_snapshot_xmin(pg_current_snapshot())";
    }
}
