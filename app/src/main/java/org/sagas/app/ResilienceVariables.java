package org.sagas.app;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.sagas.orchestrator.config.Setting;
import org.sagas.orchestrator.config.SettingsTable;

/** The resilience stacks' variables, read by ResilienceConfig.fromEnvironment; listed for --help. */
final class ResilienceVariables {
    private ResilienceVariables() {}

    static final SettingsTable INVENTORY = table("SAGA_INVENTORY", "Resilience: inventory",
            Set.of("api", "saga-worker"));
    static final SettingsTable PAYMENT = table("SAGA_PAYMENT", "Resilience: payment provider",
            Set.of("payment-worker", "reconciler"));

    private static SettingsTable table(String dep, String title, Set<String> roles) {
        List<Setting<?>> list = new ArrayList<>();
        String[][] vars = {
            {"_TIMEOUT_MS", "timeout per attempt (inventory 300, payment 2000)"},
            {"_MAX_ATTEMPTS", "attempts per call, retries included (3)"},
            {"_BACKOFF_BASE_MS", "full-jitter back-off base (50 / 200)"},
            {"_BACKOFF_CAP_MS", "full-jitter back-off cap (200 / 2000)"},
            {"_BREAKER_FAILURE_PERCENT", "failure rate that opens the breaker (50)"},
            {"_BREAKER_MIN_CALLS", "calls in the window before the breaker may open (20 / 10)"},
            {"_BREAKER_WINDOW_MS", "breaker's counting window (10000)"},
            {"_BREAKER_OPEN_MS", "how long the breaker stays open (10000)"},
            {"_BREAKER_HALF_OPEN_TRIALS", "trial calls while half-open (3)"},
            {"_BULKHEAD_PERMITS", "concurrent calls (24 / 16)"},
            {"_BULKHEAD_WAIT_MS", "longest wait for a bulkhead permit (50 / 100)"},
            {"_RETRY_BUDGET_RATIO", "retries allowed per call (0.1)"},
            {"_RETRY_BUDGET_INITIAL", "retry budget at start (10)"},
            {"_MIN_USEFUL_BUDGET_MS", "below this remaining deadline, don't call (20 / 50)"}};
        for (String[] v : vars) {
            list.add(Setting.text(dep + v[0], "", roles, v[1]));
        }
        return SettingsTable.of(title, list);
    }
}
