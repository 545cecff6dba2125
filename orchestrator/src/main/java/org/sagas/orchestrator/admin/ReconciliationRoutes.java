package org.sagas.orchestrator.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.Set;
import org.sagas.orchestrator.http.InvalidRequest;

/** {@code GET /admin/reconciliation/findings?kind=&open=&limit=}: the reconciliation's findings, newest first. */
final class ReconciliationRoutes {
    private static final Set<String> PARAMETERS = Set.of("kind", "open", "limit");

    private final ReconciliationFindings findings;

    ReconciliationRoutes(ReconciliationFindings findings) {
        this.findings = findings;
    }

    void register(RoutesConfig routes) {
        routes.get("/admin/reconciliation/findings", this::list);
    }

    private void list(Context ctx) {
        for (String name : ctx.queryParamMap().keySet()) {
            if (!PARAMETERS.contains(name)) {
                throw new InvalidRequest(name, "unknown parameter; findings take kind, open, limit");
            }
        }
        Object body;
        try {
            body = findings.list(ctx.queryParam("kind"), ctx.queryParam("open"), ctx.queryParam("limit"));
        } catch (IllegalArgumentException e) {
            throw new InvalidRequest("query", e.getMessage());
        }
        AdminServer.json(ctx, 200, body);
    }
}
