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
 * The reconciliation jobs of the {@code reconciler} role (DESIGN.md section 9b), started in
 * dependency order and stopped in reverse: the ledger puller, the Kafka Streams topology, the
 * findings sink, the repair worker and the findings' gauges.
 */
final class ReconcilerRole implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ReconcilerRole.class);

    private final Components started = new Components(java.time.Duration.ofSeconds(5));
    private Path temporaryState;

    static ReconcilerRole start(Node node, ReconcilerSettings rs) {
        ReconcilerRole role = new ReconcilerRole();
        try {
            Settings s = node.settings;
            String token = SandboxSettings.from(s).ledgerToken();
            role.started.start(Component.of("ledger-puller", new LedgerPuller(Map.of(
                    LedgerPuller.Feed.CHARGES, new LedgerPuller.Source(URI.create(s.paymentUrl()), token),
                    LedgerPuller.Feed.RESERVATIONS, new LedgerPuller.Source(URI.create(s.inventoryUrl()), token)),
                    node.dataSource, s.kafka(),
                    rs.pullInterval(), node.registry)
                    .backingOff(node.activity, node.settings.orchestrator().get(OrchestratorSettings.IDLE_BACKOFF))
                    .start()));
            Path stateDir = rs.stateDir();
            if (stateDir == null) {
                stateDir = Files.createTempDirectory("sagas-reconciler-");
                role.temporaryState = stateDir;
            }
            role.started.start(Component.of("reconciler-streams", new ReconcilerStreams(rs.config(), ReconcilerStreams.properties(s.kafka(),
                    ReconcilerStreams.APPLICATION_ID, stateDir, rs.standbys())).start()));
            OrderStore orders = new OrderStore(node.jdbi);
            role.started.start(Component.of("finding-sink", new FindingSink(node.jdbi, orderId -> status(orders, orderId), s.kafka(),
                    node.relayWakeUp(), node.registry).start()));
            role.started.start(Component.of("repair-worker", new RepairWorker(node.paymentClient(), new HttpInventoryClient(URI.create(
                    s.inventoryUrl())), s.kafka(), node.registry, (orderId, why) -> SagaReplyConsumer.sagaId(orderId)
                    .ifPresent(id -> node.engine.raiseIncident(id, IncidentCause.REPAIR_FAILED, why))).start()));
            role.started.start(Component.of("finding-gauges", new FindingGauges(node.jdbi, node.registry).start(Duration.ofSeconds(5))));
            return role;
        } catch (IOException e) {
            role.close();
            throw new UncheckedIOException("cannot create the reconciler's state directory", e);
        } catch (RuntimeException e) {
            role.close();
            throw e;
        }
    }

    private static Optional<OrderStatus> status(OrderStore orders, String orderId) {
        try {
            return orders.status(UUID.fromString(orderId));
        } catch (IllegalArgumentException e) {
            return Optional.empty(); // not an order id of ours: no such order
        }
    }

    @Override
    public void close() {
        started.close();
        if (temporaryState != null) {
            try (Stream<Path> files = Files.walk(temporaryState)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            } catch (IOException e) {
                log.debug("could not delete {}: {}", temporaryState, e.toString());
            }
        }
    }
}
