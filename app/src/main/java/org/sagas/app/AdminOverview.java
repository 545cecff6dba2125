package org.sagas.app;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.sagas.orchestrator.admin.OverviewSources;
import org.sagas.orchestrator.resilience.CircuitState;
import org.sagas.orchestrator.resilience.ResilientDependency;
import org.sagas.reconciler.FindingsReader;
import org.sagas.relay.OutboxBacklog;

/**
 * The console overview's figures from the node's breakers, the relay's outbox and the
 * reconciler's findings, each read where it is owned. Thread-safe.
 */
final class AdminOverview implements OverviewSources {
    private final ResilientDependency[] dependencies;
    private final OutboxBacklog outbox;
    private final FindingsReader findings;

    AdminOverview(OutboxBacklog outbox, FindingsReader findings, ResilientDependency... dependencies) {
        this.outbox = outbox;
        this.findings = findings;
        this.dependencies = dependencies.clone();
    }

    @Override
    public Map<String, Optional<CircuitState>> breakers() {
        Map<String, Optional<CircuitState>> states = new LinkedHashMap<>();
        for (ResilientDependency d : dependencies) {
            states.put(d.name(), d.config().breaker().isPresent() ? Optional.of(d.state()) : Optional.empty());
        }
        return states;
    }

    @Override
    public Backlog outbox() {
        OutboxBacklog.Snapshot s = outbox.read();
        return new Backlog(s.pendingRows(), s.oldestAgeMillis(), s.deadLetters());
    }

    @Override
    public Map<String, Long> openFindings() {
        return findings.openCounts();
    }
}
