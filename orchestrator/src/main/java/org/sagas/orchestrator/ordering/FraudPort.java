package org.sagas.orchestrator.ordering;

import java.time.Duration;
import org.sagas.orchestrator.resilience.TransientFailure;

/**
 * The fraud screening service, as the orders saga (version 2) sees it. Implementations do not
 * retry (retries live in one layer, the resilience stack); a screening changes nothing at the
 * service, and the same key is answered the same.
 */
public interface FraudPort {

    /** The service's answer: the order may be charged, or it is refused. */
    enum Verdict { CLEARED, REFUSED }

    /**
     * The verdict on one order, and the rule that refused it (null when cleared), for operators.
     */
    record Screening(Verdict verdict, String rule) {}

    /**
     * Screens {@code order} under {@code idempotencyKey} ({@code <orderId>:screen}).
     *
     * @param timeout how long this attempt may take
     * @param deadlineEpochMillis the caller's absolute deadline, passed on to the service
     * @throws TransientFailure when the service failed (timeout, 5xx, refused connection)
     */
    Screening screen(String idempotencyKey, OrderData order, Duration timeout, long deadlineEpochMillis);
}
