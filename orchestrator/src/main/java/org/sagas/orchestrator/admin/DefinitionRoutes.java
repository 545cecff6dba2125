package org.sagas.orchestrator.admin;

import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sagas.orchestrator.http.InvalidRequest;
import org.sagas.orchestrator.saga.DefinitionCensus;
import org.sagas.orchestrator.saga.SagaFleet;

/**
 * {@code GET /admin/definitions}: each saga definition version with its live instances by status,
 * whether this process has it and starts new instances on it, and how many live processes have it
 * (docs/operations-admin.md, "Saga versions"). Any signed-in role may read it, as every other GET.
 */
final class DefinitionRoutes {
    private final SagaFleet fleet;

    DefinitionRoutes(SagaFleet fleet) {
        this.fleet = fleet;
    }

    void register(RoutesConfig routes) {
        routes.get("/admin/definitions", this::list);
    }

    private void list(Context ctx) {
        if (!ctx.queryParamMap().isEmpty()) {
            String name = ctx.queryParamMap().keySet().iterator().next();
            throw new InvalidRequest(name, "unknown parameter; definitions take none");
        }
        List<Map<String, Object>> items = fleet.census().stream().map(DefinitionRoutes::item).toList();
        AdminServer.json(ctx, 200, Map.of("items", items));
    }

    private static Map<String, Object> item(DefinitionCensus c) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("type", c.definition().type());
        m.put("version", c.definition().version());
        m.put("inThisProcess", c.inThisProcess());
        m.put("startsNewInstances", c.startsNew());
        m.put("liveProcesses", c.liveProcesses());
        Map<String, Long> byStatus = new LinkedHashMap<>();
        c.liveInstances().entrySet().stream().sorted(Map.Entry.comparingByKey())
                .forEach(e -> byStatus.put(e.getKey().name(), e.getValue()));
        m.put("liveInstances", byStatus);
        m.put("liveTotal", c.liveTotal());
        return m;
    }
}
