package org.sagas.orchestrator.admin;

import com.fasterxml.jackson.databind.JsonNode;
import io.javalin.config.RoutesConfig;
import io.javalin.http.Context;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.sagas.orchestrator.http.InvalidRequest;
import org.sagas.orchestrator.ordering.OrderCursor;
import org.sagas.orchestrator.ordering.OrderFilter;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.orchestrator.ordering.OrderSummary;

/** {@code /admin/sagas…} and {@code /admin/incidents}: find, inspect, act on one. Thread-safe. */
final class SagaRoutes {
    static final int DEFAULT_LIMIT = 50;
    static final int MAX_LIMIT = 500;

    private final OrderStore orders;
    private final SagaInspector inspector;
    private final SagaActions actions;
    private final Guard guard;

    SagaRoutes(OrderStore orders, SagaInspector inspector, SagaActions actions, Guard guard) {
        this.orders = orders;
        this.inspector = inspector;
        this.actions = actions;
        this.guard = guard;
    }

    void register(RoutesConfig routes) {
        routes.get("/admin/sagas", this::list);
        routes.get("/admin/sagas/{orderId}", this::inspect);
        routes.post("/admin/sagas/{orderId}/retry", guard.write("retry", SagaRoutes::target, ctx -> act(ctx,
                actions.retry(Guard.who(ctx), AdminRequests.orderId(ctx), reasonOnly(ctx), null))));
        routes.post("/admin/sagas/{orderId}/cancel", guard.write("cancel", SagaRoutes::target, ctx -> act(ctx,
                actions.cancel(Guard.who(ctx), AdminRequests.orderId(ctx), reasonOnly(ctx), null))));
        routes.post("/admin/sagas/{orderId}/payment-outcome", guard.write("payment-outcome", SagaRoutes::target,
                this::paymentOutcome));
        routes.get("/admin/incidents", this::incidents);
    }

    private void list(Context ctx) {
        OrderFilter filter = FilterParams.fromQuery(ctx.queryParamMap(), Set.of("limit", "cursor"));
        page(ctx, filter);
    }

    private void incidents(Context ctx) {
        for (String name : ctx.queryParamMap().keySet()) {
            if (!Set.of("cause", "limit", "cursor").contains(name)) {
                throw new InvalidRequest(name, "unknown parameter; incidents take cause, limit, cursor");
            }
        }
        String cause = ctx.queryParam("cause");
        OrderFilter filter = cause == null ? OrderFilter.incidents()
                : FilterParams.fromQuery(Map.of("incident", List.of(cause)), Set.of());
        page(ctx, filter);
    }

    private void page(Context ctx, OrderFilter filter) {
        int limit = AdminRequests.limit(ctx, DEFAULT_LIMIT, MAX_LIMIT);
        String cursorText = ctx.queryParam("cursor");
        OrderCursor after;
        try {
            after = cursorText == null || cursorText.isBlank() ? null : OrderCursor.decode(cursorText);
        } catch (IllegalArgumentException e) {
            throw new InvalidRequest("cursor", e.getMessage());
        }
        // One more than asked tells whether another page follows.
        List<OrderSummary> rows = orders.search(filter, after, limit + 1, true);
        List<OrderSummary> items = rows.size() > limit ? rows.subList(0, limit) : rows;
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("items", items);
        body.put("nextCursor", rows.size() > limit ? items.get(items.size() - 1).cursor().encode() : null);
        AdminServer.json(ctx, 200, body);
    }

    private void inspect(Context ctx) {
        UUID id = AdminRequests.orderId(ctx);
        var view = inspector.inspect(id);
        if (view.isEmpty()) {
            throw notFound(id);
        }
        AdminServer.json(ctx, 200, view.get());
    }

    private void paymentOutcome(Context ctx) {
        UUID id = AdminRequests.orderId(ctx);
        JsonNode body = AdminRequests.body(ctx);
        AdminRequests.onlyFields(body, "outcome", "reason");
        String outcome = body.path("outcome").asText("");
        if (!outcome.equals("CAPTURED") && !outcome.equals("DECLINED")) {
            throw new InvalidRequest("outcome", "must be CAPTURED or DECLINED");
        }
        act(ctx, actions.paymentOutcome(Guard.who(ctx), id, outcome.equals("CAPTURED"),
                AdminRequests.reason(body, true)));
    }

    private static String reasonOnly(Context ctx) {
        JsonNode body = AdminRequests.body(ctx);
        AdminRequests.onlyFields(body, "reason");
        return AdminRequests.reason(body, true);
    }

    private static void act(Context ctx, ActionResult result) {
        if (result instanceof ActionResult.Applied a) {
            AdminServer.json(ctx, 200, Map.of("outcome", "APPLIED", "saga", a.now()));
        } else if (result instanceof ActionResult.AlreadyApplied a) {
            AdminServer.json(ctx, 200, Map.of("outcome", "ALREADY_APPLIED", "saga", a.now()));
        } else if (result instanceof ActionResult.Refused r) {
            throw new AdminRefusal(409, "not-allowed", "Not allowed in this state", r.why(),
                    Map.of("current", r.now()));
        } else if (result instanceof ActionResult.Conflict c) {
            throw new AdminRefusal(409, "conflict", "The saga moved meanwhile",
                    "someone else moved the saga first (" + c.why() + "); nothing was done. Its state now is in"
                            + " 'current': decide again", Map.of("current", c.now()));
        } else {
            throw notFound(((ActionResult.NotFound) result).orderId());
        }
    }

    private static AdminRefusal notFound(UUID id) {
        return new AdminRefusal(404, "not-found", "Order not found", "no order " + id, Map.of());
    }

    private static String target(Context ctx) {
        return ctx.pathParam("orderId");
    }
}
