package org.sagas.peers.saga.flowable;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.function.BiConsumer;
import org.flowable.common.engine.impl.cfg.TransactionState;
import org.flowable.common.engine.impl.context.Context;
import org.flowable.engine.delegate.DelegateExecution;
import org.flowable.engine.delegate.JavaDelegate;
import org.sagas.peers.saga.peer.OrderRequest;
import org.sagas.peers.saga.peer.PaymentOutcome;
import org.sagas.peers.saga.peer.PaymentWorker;
import org.sagas.peers.saga.peer.SandboxClient;

/**
 * The service tasks of {@code orders.bpmn20.xml}, given to the engine as beans. The order lives in
 * one process variable, {@code order} (its JSON), so that each saga stores one variable row for it
 * rather than one per field. Thread-safe.
 */
final class SagaTasks {
    static final String ORDER = "order";
    private static final ObjectMapper JSON = new ObjectMapper();

    private SagaTasks() {}

    static String write(OrderRequest order) {
        try {
            return JSON.writeValueAsString(order);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("order " + order.orderId() + " cannot be written as JSON", e);
        }
    }

    static OrderRequest order(DelegateExecution execution) {
        try {
            return JSON.readValue((String) execution.getVariable(ORDER), OrderRequest.class);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("process " + execution.getProcessInstanceId() + " holds no order", e);
        }
    }

    /**
     * Reserves; the outcome is a transient variable: only the gateway right after it reads it. A
     * failure fails the start call (see {@code FlowableOrders#submit}).
     */
    record ReserveStock(SandboxClient sandbox) implements JavaDelegate {
        @Override
        public void execute(DelegateExecution execution) {
            execution.setTransientVariable("stockReserved", sandbox.reserve(order(execution)));
        }
    }

    /** The reserve's compensation handler. */
    record ReleaseStock(SandboxClient sandbox) implements JavaDelegate {
        @Override
        public void execute(DelegateExecution execution) {
            sandbox.release(order(execution));
        }
    }

    /** After a timeout: whatever the provider charged under the order's key is given back. */
    record RefundCharge(SandboxClient sandbox) implements JavaDelegate {
        @Override
        public void execute(DelegateExecution execution) {
            sandbox.refund(order(execution));
        }
    }

    /**
     * The asynchronous charge: once this job's transaction has committed (the saga then waits at
     * the event-based gateway, its message subscription stored), the payment worker charges and
     * hands the outcome to {@code reply} with the process instance id.
     */
    record RequestCharge(PaymentWorker worker, BiConsumer<String, PaymentOutcome> reply) implements JavaDelegate {
        @Override
        public void execute(DelegateExecution execution) {
            OrderRequest order = order(execution);
            String processInstanceId = execution.getProcessInstanceId();
            Context.getTransactionContext().addTransactionListener(TransactionState.COMMITTED,
                    commandContext -> worker.charge(order, outcome -> reply.accept(processInstanceId, outcome)));
        }
    }
}
