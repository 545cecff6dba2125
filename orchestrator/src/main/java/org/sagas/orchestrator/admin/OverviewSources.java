package org.sagas.orchestrator.admin;

import java.util.Map;
import java.util.Optional;
import org.sagas.orchestrator.resilience.CircuitState;

/**
 * The figures of the console's overview that live outside the orchestrator's own tables: each
 * dependency's breaker, the outbox's backlog (the relay owns that table) and the reconciliation's
 * open findings (the reconciler owns those). Implementations are thread-safe and read-only.
 */
public interface OverviewSources {
    /**
     * The outbox as the relay sees it.
     *
     * @param pendingRows committed rows not yet acknowledged by Kafka
     * @param oldestAgeMillis age of the oldest of them (0: none)
     * @param deadLetters rows the broker refused for good
     */
    record Backlog(long pendingRows, long oldestAgeMillis, long deadLetters) {}

    /** Nothing known: no breakers, an empty outbox, no findings. */
    OverviewSources NONE = new OverviewSources() {
        @Override
        public Map<String, Optional<CircuitState>> breakers() {
            return Map.of();
        }

        @Override
        public Backlog outbox() {
            return new Backlog(0, 0, 0);
        }

        @Override
        public Map<String, Long> openFindings() {
            return Map.of();
        }
    };

    /** Each dependency's breaker state, by dependency name; empty for a dependency without a breaker. */
    Map<String, Optional<CircuitState>> breakers();

    Backlog outbox();

    /** Open reconciliation findings per kind (kinds with none may be left out). */
    Map<String, Long> openFindings();
}
