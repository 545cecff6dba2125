package org.sagas.app;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Map;
import org.sagas.orchestrator.OrchestratorSettings;
import org.sagas.orchestrator.lifecycle.Component;
import org.sagas.orchestrator.lifecycle.Components;
import org.sagas.orchestrator.lifecycle.JobListener;
import org.sagas.orchestrator.lifecycle.PeriodicJob;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.Stream;
import org.sagas.adapters.http.HttpInventoryClient;
import org.sagas.orchestrator.ordering.OrderStatus;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.reconciler.FindingGauges;
import org.sagas.reconciler.FindingSink;
import org.sagas.reconciler.LedgerPuller;
import org.sagas.reconciler.ReconcilerStreams;
import org.sagas.reconciler.RepairWorker;
import org.sagas.adapters.messaging.SagaReplyConsumer;
import org.sagas.orchestrator.saga.IncidentCause;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The reconciliation jobs of the {@code reconciler} role (docs/design.md, "Reconciliation"), started
 * in dependency order into the process's {@link Components} (so each has its own line in {@code
 * /health/components}) and stopped in reverse: the ledger puller, the Kafka Streams topology (its
 * temporary state deleted after it stops), the findings sink, the repair worker and the findings'
 * gauges.
 */
final class ReconcilerRole {
    private static final Logger log = LoggerFactory.getLogger(ReconcilerRole.class);

    private ReconcilerRole() {}

    static void start(Node node, ReconcilerSettings rs, Components into, JobListener jobs) {
        Settings s = node.settings;
        String token = SandboxSettings.from(s).ledgerToken();
        into.start(new LedgerPuller(Map.of(
                LedgerPuller.Feed.CHARGES, new LedgerPuller.Source(URI.create(s.paymentUrl()), token),
                LedgerPuller.Feed.RESERVATIONS, new LedgerPuller.Source(URI.create(s.inventoryUrl()), token)),
                node.dataSource, s.kafka(), rs.pullInterval(), node.registry, jobs)
                .backingOff(node.activity, s.orchestrator().get(OrchestratorSettings.IDLE_BACKOFF)));
        Path stateDir = rs.stateDir();
        if (stateDir == null) {
            try {
                stateDir = Files.createTempDirectory("sagas-reconciler-");
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create the reconciler's state directory", e);
            }
            Path temporary = stateDir;
            into.start(Component.of("reconciler-state", () -> delete(temporary)));
        }
        into.start(Component.of("reconciler-streams", new ReconcilerStreams(rs.config(), ReconcilerStreams.properties(
                s.kafka(), ReconcilerStreams.APPLICATION_ID, stateDir, rs.standbys())).start()));
        OrderStore orders = new OrderStore(node.jdbi);
        into.start(Component.of("finding-sink", new FindingSink(node.jdbi, orderId -> status(orders, orderId), s.kafka(),
                node.relayWakeUp(), node.registry).start()));
        into.start(Component.of("repair-worker", new RepairWorker(node.paymentClient(), new HttpInventoryClient(URI.create(
                s.inventoryUrl())), s.kafka(), node.registry, (orderId, why) -> SagaReplyConsumer.sagaId(orderId)
                .ifPresent(id -> node.engine.raiseIncident(id, IncidentCause.REPAIR_FAILED, why))).start()));
        FindingGauges gauges = new FindingGauges(node.jdbi, node.registry);
        into.start(new PeriodicJob("finding-gauges", Duration.ZERO, rs.gaugesPeriod(), gauges::refresh, jobs));
    }

    private static Optional<OrderStatus> status(OrderStore orders, String orderId) {
        try {
            return orders.status(UUID.fromString(orderId));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // not an order id of ours: no such order
        }
    }

    private static void delete(Path temporaryState) {
        try (Stream<Path> files = Files.walk(temporaryState)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            log.debug("could not delete {}: {}", temporaryState, e.toString());
        }
    }
}
