package org.sagas.orchestrator.admin;

import java.util.List;
import java.util.Map;

/**
 * The reconciliation's findings (docs/design.md, "Reconciliation") as the reconciler stores them; the operator
 * API lists them at {@code GET /admin/reconciliation/findings?kind=&open=&limit=}. The reconciler
 * module implements it (its findings reader); a product without one lists nothing.
 */
@FunctionalInterface
public interface ReconciliationFindings {
    /** No reconciler: no findings. */
    ReconciliationFindings NONE = (kind, open, limit) -> Map.of("items", List.of());

    /**
     * The answer's body, {@code {"items":[…]}}, for the query parameters as given (null: not given).
     *
     * @throws IllegalArgumentException naming the parameter, for a value out of its range
     */
    Object list(String kind, String open, String limit);
}
