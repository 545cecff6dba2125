package org.sagas.peers.saga.flowable;

import com.zaxxer.hikari.HikariDataSource;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.flowable.common.engine.api.FlowableOptimisticLockingException;
import org.flowable.common.engine.impl.history.HistoryLevel;
import org.flowable.engine.ProcessEngine;
import org.flowable.engine.ProcessEngineConfiguration;
import org.flowable.engine.RuntimeService;
import org.flowable.engine.impl.cfg.StandaloneProcessEngineConfiguration;
import org.flowable.engine.runtime.Execution;
import org.flowable.engine.runtime.ProcessInstance;
import org.sagas.peers.saga.peer.OrderEndpoint;
import org.sagas.peers.saga.peer.OrderRequest;
import org.sagas.peers.saga.peer.PaymentOutcome;
import org.sagas.peers.saga.peer.PaymentWorker;
import org.sagas.peers.saga.peer.PeerSettings;
import org.sagas.peers.saga.peer.SandboxClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Flowable peer, a JVM of its own: {@code FlowableOrders prepare} creates Flowable's tables
 * and deploys {@code orders.bpmn20.xml}, then exits; {@code FlowableOrders} serves
 * {@code POST /orders} and prints {@code peer listening on port N} once it can. The handler starts
 * the process instance, whose start call runs the reservation synchronously and commits at the
 * asynchronous charge; the payment worker's answer is delivered to the waiting message event.
 * Settings: history level {@value #HISTORY} (Flowable's default), the async executor on with its
 * defaults (8 threads), IDM engine and event registry off (the saga uses neither), the pool the
 * benchmark gives every contender with at most one command fewer than its connections running at
 * once ({@link CommandPermits}: otherwise the pool deadlocks). A start
 * call holds its connection through the reservation's HTTP call, as a synchronous service task
 * runs inside the command's transaction.
 */
public final class FlowableOrders {
    static final String HISTORY = "audit";
    private static final Logger log = LoggerFactory.getLogger(FlowableOrders.class);
    private static final String MESSAGE = "paymentResult";
    private static final int CORRELATION_ATTEMPTS = 5;

    private FlowableOrders() {}

    public static void main(String[] args) throws Exception {
        PeerSettings settings = PeerSettings.fromEnvironment(System.getenv());
        boolean prepare = args.length > 0 && args[0].equals("prepare");
        SandboxClient sandbox = settings.sandbox();
        try (HikariDataSource pool = settings.pool("flowable"); PaymentWorker worker = new PaymentWorker(sandbox)) {
            RuntimeService[] runtime = new RuntimeService[1];
            StandaloneProcessEngineConfiguration config = new StandaloneProcessEngineConfiguration();
            config.setDataSource(pool);
            config.setDatabaseSchemaUpdate(prepare ? ProcessEngineConfiguration.DB_SCHEMA_UPDATE_TRUE
                    : ProcessEngineConfiguration.DB_SCHEMA_UPDATE_FALSE);
            config.setHistoryLevel(HistoryLevel.getHistoryLevelForKey(HISTORY));
            config.setAsyncExecutorActivate(!prepare);
            config.setDisableIdmEngine(true);
            config.setDisableEventRegistry(true);
            config.setCustomPreCommandInterceptors(List.of(new CommandPermits(settings.poolSize())));
            config.setBeans(Map.of(
                    "reserveStock", new SagaTasks.ReserveStock(sandbox),
                    "releaseStock", new SagaTasks.ReleaseStock(sandbox),
                    "refundCharge", new SagaTasks.RefundCharge(sandbox),
                    "requestCharge", new SagaTasks.RequestCharge(worker,
                            (processInstanceId, outcome) -> answer(runtime[0], processInstanceId, outcome))));
            ProcessEngine engine = config.buildProcessEngine();
            try {
                runtime[0] = engine.getRuntimeService();
                if (prepare) {
                    engine.getRepositoryService().createDeployment().name("orders")
                            .addClasspathResource("org/sagas/peers/saga/flowable/orders.bpmn20.xml").deploy();
                    System.out.println("peer prepared");
                    return;
                }
                serve(runtime[0], sandbox);
            } finally {
                engine.close();
            }
        }
    }

    private static void serve(RuntimeService runtime, SandboxClient sandbox) throws Exception {
        try (OrderEndpoint endpoint = OrderEndpoint.start(order -> submit(runtime, sandbox, order))) {
            System.out.println("peer listening on port " + endpoint.port());
            System.out.flush();
            CountDownLatch stopped = new CountDownLatch(1);
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown));
            stopped.await();
        }
    }

    /**
     * Runs the reservation in this thread; the saga's first transaction commits at the async
     * charge. When the start call fails, its transaction stored nothing: whatever the reservation
     * holds is released (a tombstone if it was not made), and the client gets 503.
     */
    private static boolean submit(RuntimeService runtime, SandboxClient sandbox, OrderRequest order) {
        try {
            ProcessInstance saga = runtime.createProcessInstanceBuilder().processDefinitionKey("orders")
                    .businessKey(order.orderId()).variable(SagaTasks.ORDER, SagaTasks.write(order))
                    .variable("paymentTimeout", Duration.ofMillis(order.paymentTimeoutMillis()).toString()).start();
            return !saga.isEnded();
        } catch (RuntimeException e) {
            log.warn("order {}: start failed, releasing its stock: {}", order.orderId(), e.toString());
            sandbox.release(order);
            throw e;
        }
    }

    /**
     * Delivers the payment's outcome to the saga's message event; the rest of the saga (confirm,
     * or compensate) runs in this thread. A saga that no longer waits (its timer fired first) takes
     * no late answer: logged.
     */
    private static void answer(RuntimeService runtime, String processInstanceId, PaymentOutcome outcome) {
        for (int attempt = 1; attempt <= CORRELATION_ATTEMPTS; attempt++) {
            Execution waiting = runtime.createExecutionQuery().processInstanceId(processInstanceId)
                    .messageEventSubscriptionName(MESSAGE).singleResult();
            if (waiting == null) {
                log.warn("process {}: payment outcome {} arrived when the saga no longer waited for it",
                        processInstanceId, outcome);
                return;
            }
            try {
                runtime.messageEventReceived(MESSAGE, waiting.getId(), Map.of("paymentStatus", outcome.name()));
                return;
            } catch (FlowableOptimisticLockingException e) {
                log.info("process {}: concurrent change while delivering the payment outcome, attempt {}",
                        processInstanceId, attempt);
            }
        }
        log.warn("process {}: payment outcome {} not delivered after {} attempts; the timer decides",
                processInstanceId, outcome, CORRELATION_ATTEMPTS);
    }
}
