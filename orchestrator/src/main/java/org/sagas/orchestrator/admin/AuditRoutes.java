package org.sagas.orchestrator.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.sagas.orchestrator.http.InvalidRequest;

/** {@code GET /admin/audit} (newest first, filtered, paged back by id) and {@code GET /admin/whoami}. */
final class AuditRoutes {
    private final AuditLog audit;
    private final Guard guard;

    AuditRoutes(AuditLog audit, Guard guard) {
        this.audit = audit;
        this.guard = guard;
    }

    void register(RoutesConfig routes) {
        routes.get("/admin/audit", this::list);
        routes.get("/admin/whoami", ctx -> {
            Operator who = Guard.who(ctx);
            AdminServer.json(ctx, 200, Map.of("name", who.name(), "role", who.role().text(),
                    "readOnly", guard.readOnly(), "mayWrite", who.mayWrite() && !guard.readOnly()));
        });
    }

    private void list(Context ctx) {
        for (String name : ctx.queryParamMap().keySet()) {
            if (!Set.of("limit", "target", "actor", "action", "batchId", "before").contains(name)) {
                throw new InvalidRequest(name, "unknown parameter; audit takes limit, target, actor, action, batchId,"
                        + " before");
            }
        }
        int limit = AdminRequests.limit(ctx, 50, 1000);
        String before = ctx.queryParam("before");
        String batch = ctx.queryParam("batchId");
        List<AuditEntry> entries = audit.list(new AuditLog.Query(ctx.queryParam("target"), ctx.queryParam("actor"),
                ctx.queryParam("action"),
                batch == null ? null : AdminRequests.uuid(batch, "batchId", "a batch id (UUID)"),
                before == null ? null : FilterParams.number("before", before, 1, Long.MAX_VALUE), limit + 1));
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", entries.size() > limit ? entries.subList(0, limit) : entries);
        body.put("nextBefore", entries.size() > limit ? entries.get(limit - 1).id() : null);
        AdminServer.json(ctx, 200, body);
    }
}
