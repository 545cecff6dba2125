package org.sagas.orchestrator.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.sagas.orchestrator.http.InvalidRequest;

/** {@code /admin/batches…}: act on many sagas at a paced rate, follow, stop. Thread-safe. */
final class BatchRoutes {
    private static final List<String> STATES = List.of(Batch.RUNNING, Batch.STOPPED, Batch.COMPLETED, Batch.FAILED);

    private final Batches batches;
    private final Guard guard;

    BatchRoutes(Batches batches, Guard guard) {
        this.batches = batches;
        this.guard = guard;
    }

    void register(RoutesConfig routes) {
        routes.post("/admin/batches", ctx -> {
            Batches.Request request = Batches.parse(AdminRequests.body(ctx));
            if (request.dryRun()) {
                // A dry run writes nothing: a viewer may ask for one, even in read-only mode.
                AdminServer.json(ctx, 200, batches.create(Guard.who(ctx), request));
            } else {
                guard.write("batch-start", c -> "batch", c -> AdminServer.json(c, 202,
                        batches.create(Guard.who(c), request))).handle(ctx);
            }
        });
        routes.get("/admin/batches", this::list);
        routes.get("/admin/batches/{batchId}", ctx -> {
            UUID id = id(ctx);
            AdminServer.json(ctx, 200, batches.view(id).orElseThrow(() -> notFound(id)));
        });
        routes.post("/admin/batches/{batchId}/stop", guard.write("batch-stop", ctx -> "batch:" + ctx.pathParam(
                "batchId"), ctx -> {
                    UUID id = id(ctx);
                    var body = AdminRequests.body(ctx);
                    AdminRequests.onlyFields(body, "reason");
                    Batches.ActionOnBatch result = batches.stop(Guard.who(ctx), id, AdminRequests.reason(body, true));
                    if (result.status() == 404) {
                        throw notFound(id);
                    }
                    if (result.status() == 409) {
                        throw new AdminRefusal(409, "not-allowed", "Not running", "batch " + id + " is "
                                + result.batch().get("state") + ": only a running batch can be stopped",
                                Map.of("current", result.batch()));
                    }
                    AdminServer.json(ctx, 200, result.batch());
                }));
    }

    private void list(Context ctx) {
        String state = ctx.queryParam("state");
        if (state != null && !STATES.contains(state)) {
            throw new InvalidRequest("state", "must be one of " + STATES);
        }
        AdminServer.json(ctx, 200, Map.of("items", batches.list(state, AdminRequests.limit(ctx, 50, 500))));
    }

    private static UUID id(Context ctx) {
        return AdminRequests.uuid(ctx.pathParam("batchId"), "batchId", "a batch id (UUID)");
    }

    private static AdminRefusal notFound(UUID id) {
        return new AdminRefusal(404, "not-found", "Batch not found", "no batch " + id, Map.of());
    }
}
