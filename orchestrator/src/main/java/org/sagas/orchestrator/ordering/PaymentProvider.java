package org.sagas.orchestrator.ordering;

import java.time.Duration;
import java.util.Optional;
import java.util.UUID;
import org.sagas.orchestrator.resilience.TransientFailure;

/**
 * The payment provider. Every operation is idempotent by key: a retry with the same key never
 * charges twice. Implementations do not retry.
 */
public interface PaymentProvider {

    /** The provider's answer to a charge. */
    enum Charge { CAPTURED, DECLINED, REFUNDED }

    /**
     * Charges {@code amountCents} under {@code idempotencyKey} ({@code <orderId>:charge}).
     *
     * @throws TransientFailure when the provider failed or its answer was lost
     */
    Charge charge(String idempotencyKey, UUID orderId, long amountCents, String currency, Duration timeout);

    /** What the provider recorded under {@code idempotencyKey}; empty when it never saw it. */
    Optional<Charge> lookup(String idempotencyKey, Duration timeout);

    /** Refunds the capture made under {@code chargeKey}; refunding twice is a no-op. */
    Charge refund(String refundKey, String chargeKey, Duration timeout);
}
