package org.sagas.peers.saga.dbos;

import dev.dbos.transact.DBOS;
import dev.dbos.transact.workflow.StepOptions;
import dev.dbos.transact.workflow.Workflow;
import java.time.Duration;
import java.util.Optional;
import org.sagas.peers.saga.peer.OrderRequest;
import org.sagas.peers.saga.peer.PaymentOutcome;
import org.sagas.peers.saga.peer.PaymentWorker;
import org.sagas.peers.saga.peer.SandboxClient;
import org.sagas.peers.saga.peer.SandboxFailure;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The orders saga written the way DBOS documents it: a workflow whose steps DBOS checkpoints in
 * its system database. Reserve (one attempt: the client is waiting; a failure releases whatever a
 * late reservation might hold and ends the saga {@code FAILED}); publish {@code submitted} for the
 * HTTP handler ({@code setEvent}); request the charge (a step handing it to the payment worker,
 * which answers with {@code send}, as DBOS's documentation has a payment webhook do); wait for the
 * answer with {@code recv} under the payment timeout; then confirm, or compensate by releasing the
 * stock. A timeout refunds whatever was charged, releases, and ends the saga {@code TIMED_OUT}.
 * Participant calls after the reservation retry three times, 200 ms apart and doubling.
 * Thread-safe.
 */
final class OrderSagaWorkflows implements OrderWorkflows {
    static final String SUBMITTED = "submitted";
    static final String PAYMENT_TOPIC = "payment";
    private static final Logger log = LoggerFactory.getLogger(OrderSagaWorkflows.class);
    private static final StepOptions RESERVE = new StepOptions("reserve", 1, Duration.ofMillis(200), 2.0);

    private final DBOS dbos;
    private final SandboxClient sandbox;
    private final PaymentWorker payments;

    OrderSagaWorkflows(DBOS dbos, SandboxClient sandbox, PaymentWorker payments) {
        this.dbos = dbos;
        this.sandbox = sandbox;
        this.payments = payments;
    }

    @Override
    @Workflow(name = "order")
    public String order(OrderRequest order) {
        boolean reserved;
        try {
            reserved = dbos.runStep(() -> sandbox.reserve(order), RESERVE);
        } catch (SandboxFailure e) {
            log.warn("order {}: reservation failed, saga ends FAILED: {}", order.orderId(), e.getMessage());
            dbos.runStep(() -> sandbox.release(order), retried("release"));
            dbos.setEvent(SUBMITTED, "FAILED");
            return "FAILED";
        }
        if (!reserved) {
            dbos.setEvent(SUBMITTED, "REJECTED");
            return "REJECTED";
        }
        dbos.setEvent(SUBMITTED, "AWAITING_PAYMENT");
        dbos.runStep(() -> payments.charge(order, outcome -> dbos.send(order.orderId(), outcome.name(),
                PAYMENT_TOPIC)), "requestCharge");
        Optional<String> outcome = dbos.recv(PAYMENT_TOPIC, Duration.ofMillis(order.paymentTimeoutMillis()));
        if (outcome.isEmpty()) {
            dbos.runStep(() -> sandbox.refund(order), retried("refund"));
            dbos.runStep(() -> sandbox.release(order), retried("release"));
            return "TIMED_OUT";
        }
        if (PaymentOutcome.valueOf(outcome.get()) == PaymentOutcome.CAPTURED) {
            return "CONFIRMED";
        }
        dbos.runStep(() -> sandbox.release(order), retried("release"));
        return "CANCELLED";
    }

    private static StepOptions retried(String name) {
        return new StepOptions(name, 3, Duration.ofMillis(200), 2.0);
    }
}
