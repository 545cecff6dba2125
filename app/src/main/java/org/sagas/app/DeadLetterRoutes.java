package org.sagas.app;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Map;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.http.InvalidRequest;
import org.sagas.orchestrator.http.Problems;
import org.sagas.relay.OutboxDeadLetters;

/**
 * Operators' view of outbox rows the broker refused: {@code GET /admin/outbox/dead-letters},
 * {@code POST /admin/outbox/dead-letters/{id}/replay} (back into the outbox, where it was),
 * {@code DELETE /admin/outbox/dead-letters/{id}} (give up on it). Thread-safe.
 */
final class DeadLetterRoutes {
    private final OutboxDeadLetters deadLetters;

    DeadLetterRoutes(OutboxDeadLetters deadLetters) {
        this.deadLetters = deadLetters;
    }

    void register(RoutesConfig routes) {
        routes.get("/admin/outbox/dead-letters", this::list);
        routes.post("/admin/outbox/dead-letters/{id}/replay", ctx -> act(ctx, deadLetters.replay(id(ctx))));
        routes.delete("/admin/outbox/dead-letters/{id}", ctx -> act(ctx, deadLetters.discard(id(ctx))));
    }

    private void list(Context ctx) {
        int limit = 100;
        String param = ctx.queryParam("limit");
        if (param != null) {
            try {
                limit = Integer.parseInt(param);
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > 1000) {
                throw new InvalidRequest("limit", "must be an integer from 1 to 1000");
            }
        }
        ctx.contentType("application/json").result(Json.write(Map.of("count", deadLetters.count(),
                "deadLetters", deadLetters.list(limit))));
    }

    private static void act(Context ctx, boolean found) {
        if (found) {
            ctx.status(204);
        } else {
            Problems.send(ctx, 404, "not-found", "No such dead letter", "no dead-lettered outbox row "
                    + ctx.pathParam("id"), Map.of());
        }
    }

    private static long id(Context ctx) {
        try {
            return Long.parseLong(ctx.pathParam("id"));
        } catch (NumberFormatException e) {
            throw new InvalidRequest("id", "must be an outbox row id (integer)");
        }
    }
}
