package org.sagas.peers.saga.dbos;

import com.zaxxer.hikari.HikariDataSource;
import dev.dbos.transact.DBOS;
import dev.dbos.transact.StartWorkflowOptions;
import dev.dbos.transact.config.DBOSConfig;
import dev.dbos.transact.migrations.MigrationManager;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import org.sagas.peers.saga.peer.OrderEndpoint;
import org.sagas.peers.saga.peer.OrderRequest;
import org.sagas.peers.saga.peer.PaymentWorker;
import org.sagas.peers.saga.peer.SandboxClient;
import org.sagas.peers.saga.peer.PeerSettings;

/**
 * The DBOS Transact peer, a JVM of its own: {@code DbosOrders prepare} creates DBOS's system
 * tables and exits; {@code DbosOrders} serves {@code POST /orders} and prints
 * {@code peer listening on port N} once it can. The handler starts the saga under the order id
 * (a repeated submission finds the same workflow) and answers when the saga has published
 * {@code submitted}. DBOS's defaults otherwise: LISTEN/NOTIFY on, no queue, no admin server, the
 * pool the benchmark gives every contender (DBOS's notification listener holds one of its
 * connections). On Java 17 DBOS runs workflows on a fixed pool of 50 threads per core, and a
 * workflow waiting in {@code recv} holds its thread; the payment worker runs on threads of its own,
 * so the answers never wait behind the sagas waiting for them.
 */
public final class DbosOrders {
    private static final Duration SUBMIT_WAIT = Duration.ofSeconds(10);

    private DbosOrders() {}

    public static void main(String[] args) throws Exception {
        PeerSettings settings = PeerSettings.fromEnvironment(System.getenv());
        try (HikariDataSource pool = settings.pool("dbos")) {
            DBOSConfig config = DBOSConfig.defaults("peers-orders").withDataSource(pool);
            if (args.length > 0 && args[0].equals("prepare")) {
                MigrationManager.runMigrations(config);
                System.out.println("peer prepared");
                return;
            }
            DBOS dbos = new DBOS(config.withMigrate(false));
            SandboxClient sandbox = settings.sandbox();
            PaymentWorker payments = new PaymentWorker(sandbox);
            OrderWorkflows workflows = dbos.registerProxy(OrderWorkflows.class,
                    new OrderSagaWorkflows(dbos, sandbox, payments));
            dbos.launch();
            try (payments; OrderEndpoint endpoint = OrderEndpoint.start(order -> submit(dbos, workflows, order))) {
                System.out.println("peer listening on port " + endpoint.port());
                System.out.flush();
                CountDownLatch stopped = new CountDownLatch(1);
                Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
                stopped.await();
            } finally {
                dbos.shutdown();
            }
        }
    }

    private static boolean submit(DBOS dbos, OrderWorkflows workflows, OrderRequest order) {
        dbos.startWorkflow(() -> workflows.order(order), new StartWorkflowOptions(order.orderId()));
        Optional<String> submitted = dbos.getEvent(order.orderId(), OrderSagaWorkflows.SUBMITTED, SUBMIT_WAIT);
        return switch (submitted.orElseThrow(() -> new IllegalStateException("the saga published nothing in "
                + SUBMIT_WAIT.toSeconds() + " s"))) {
            case "AWAITING_PAYMENT" -> true;
            case "REJECTED" -> false;
            case "FAILED" -> throw new IllegalStateException("the reservation failed; the saga ended FAILED");
            default -> throw new IllegalStateException("unexpected submission state " + submitted.get());
        };
    }
}
