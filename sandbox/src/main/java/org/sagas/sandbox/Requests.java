package org.sagas.sandbox;

import io.javalin.http.Context;
import java.util.OptionalLong;

/** The request headers the sandboxes read, validated into 400 problems. */
final class Requests {
    static final String IDEMPOTENCY_KEY = "Idempotency-Key";
    static final String DEADLINE = "X-Deadline";
    static final int MAX_KEY_LENGTH = org.sagas.orchestrator.ordering.Limits.MAX_KEY;

    private Requests() {}

    /** The required {@code Idempotency-Key} header. */
    static String idempotencyKey(Context ctx) {
        return Json.text(ctx.header(IDEMPOTENCY_KEY), IDEMPOTENCY_KEY, MAX_KEY_LENGTH);
    }

    /** The caller's absolute deadline ({@code X-Deadline}, epoch milliseconds); empty when absent. */
    static OptionalLong deadline(Context ctx) {
        String value = ctx.header(DEADLINE);
        if (value == null || value.isBlank()) {
            return OptionalLong.empty();
        }
        try {
            return OptionalLong.of(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            throw Problem.invalid(DEADLINE, "must be epoch milliseconds");
        }
    }
}
