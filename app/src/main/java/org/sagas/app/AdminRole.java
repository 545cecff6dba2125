package org.sagas.app;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import org.sagas.adapters.http.HttpParticipantViews;
import org.sagas.adapters.messaging.KafkaDeadLetterTopics;
import org.sagas.orchestrator.OrchestratorSettings;
import org.sagas.orchestrator.saga.SagaFleet;
import org.sagas.orchestrator.admin.AdminServer;
import org.sagas.orchestrator.admin.AdminTokens;
import org.sagas.orchestrator.ordering.OrderStore;
import org.sagas.relay.OutboxBacklog;
import org.sagas.relay.OutboxDeadLetters;
import org.sagas.reconciler.FindingsReader;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The operator API beside the public one, in the process that runs the {@code api} role: its own
 * listener, its tokens (configured, or generated into the data directory), its ports to the
 * participants, Kafka and the relay's dead letters. Not thread-safe: start and close from one thread.
 */
final class AdminRole implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(AdminRole.class);

    private final AdminServer server;
    private final KafkaDeadLetterTopics kafka;
    private final Path tokenFile;

    private AdminRole(AdminServer server, KafkaDeadLetterTopics kafka, Path tokenFile) {
        this.server = server;
        this.kafka = kafka;
        this.tokenFile = tokenFile;
    }

    /**
     * Starts the operator API; without configured tokens, makes one in {@code tokenDir}. Without
     * either, answers null: the operator API stays off, and the log says so.
     */
    static AdminRole start(Node node, Settings s, AdminSettings admin, Path tokenDir) {
        AdminTokens tokens = admin.tokens();
        Path tokenFile = null;
        if (tokens.isEmpty()) {
            if (tokenDir == null) {
                log.warn("operator API off: no SAGA_ADMIN_TOKEN, SAGA_ADMIN_TOKENS_FILE or SAGA_DATA_DIR for a"
                        + " generated token");
                return null;
            }
            tokens = AdminTokens.operator(AdminTokenFile.ensure(tokenDir));
            tokenFile = tokenDir.resolve(AdminTokenFile.NAME);
        }
        KafkaDeadLetterTopics kafka = new KafkaDeadLetterTopics(s.kafka());
        try {
            AdminServer server = AdminServer.start(new AdminServer.Config(admin.host(), admin.port(), tokens,
                    admin.readOnly(), admin.participantTimeout(), Duration.ofSeconds(2), Duration.ofSeconds(15),
                    ApiProtection.from(s).limits(), admin.sessions(), admin.failures()),
                    new AdminServer.Parts(node.jdbi, node.engine, new OrderStore(node.jdbi),
                            new HttpParticipantViews(URI.create(s.inventoryUrl()), URI.create(s.paymentUrl()),
                                    SandboxSettings.from(s).ledgerToken()),
                            new RelayDeadLetters(new OutboxDeadLetters(node.dataSource)), kafka, node.clock,
                            new FindingsReader(node.jdbi)::list, new AdminOverview(new OutboxBacklog(node.dataSource),
                                    new FindingsReader(node.jdbi), node.inventory, node.payments), node.registry,
                            new SagaFleet(node.jdbi, node.engine,
                                    s.orchestrator().get(OrchestratorSettings.VERSIONS_HEARTBEAT))));
            return new AdminRole(server, kafka, tokenFile);
        } catch (RuntimeException e) {
            kafka.close();
            throw e;
        }
    }

    int port() {
        return server.port();
    }

    java.util.List<String> routes() {
        return server.routes();
    }

    /** The generated token's file, or null when tokens were configured. */
    Path tokenFile() {
        return tokenFile;
    }

    @Override
    public void close() {
        server.close();
        kafka.close();
    }
}
