package org.sagas.peers.saga.peer;

import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Charges orders on 16 threads (the product's payment bulkhead has 16 permits) and hands each
 * outcome to the engine, asynchronously to the saga that asked. A charge that fails is retried
 * three times, 200 ms apart; after that the saga's payment timeout decides. Orders of
 * {@link OrderRequest#LOST_REPLY_CUSTOMER} are charged but their outcome is dropped, as a
 * provider's lost answer would be. Thread-safe.
 */
public final class PaymentWorker implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(PaymentWorker.class);
    private static final int THREADS = 16;
    private static final int ATTEMPTS = 3;

    private final SandboxClient sandbox;
    private final ExecutorService threads = Executors.newFixedThreadPool(THREADS, named("payment-worker-"));

    public PaymentWorker(SandboxClient sandbox) {
        this.sandbox = sandbox;
    }

    /** Charges {@code order} in the background, then hands the outcome to {@code reply}. */
    public void charge(OrderRequest order, Consumer<PaymentOutcome> reply) {
        threads.execute(() -> {
            PaymentOutcome outcome = chargeWithRetries(order);
            if (outcome == null) {
                return;
            }
            if (order.loseReply()) {
                log.info("order {}: payment outcome {} dropped on purpose (timeout probe)", order.orderId(), outcome);
                return;
            }
            reply.accept(outcome);
        });
    }

    private PaymentOutcome chargeWithRetries(OrderRequest order) {
        for (int attempt = 1; ; attempt++) {
            try {
                return sandbox.charge(order);
            } catch (SandboxFailure e) {
                if (attempt == ATTEMPTS) {
                    log.warn("order {}: charge failed {} times, left to the payment timeout: {}", order.orderId(),
                            attempt, e.getMessage());
                    return null;
                }
                try {
                    TimeUnit.MILLISECONDS.sleep(200);
                } catch (InterruptedException interrupted) {
                    Thread.currentThread().interrupt();
                    return null;
                }
            }
        }
    }

    @Override
    public void close() {
        threads.shutdownNow();
    }

    /** Daemon threads named {@code prefix1, prefix2, ...}. */
    public static ThreadFactory named(String prefix) {
        AtomicInteger n = new AtomicInteger();
        return task -> {
            Thread t = new Thread(task, prefix + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        };
    }
}
