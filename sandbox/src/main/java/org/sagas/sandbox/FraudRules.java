package org.sagas.sandbox;

import java.util.Objects;
import java.util.Set;

/**
 * The sandbox fraud service's rules: an order over {@code limitCents}, or from a customer in
 * {@code flaggedCustomers}, is refused; any other is cleared. Deterministic, so a screening asked
 * twice under one key is answered the same without a ledger. Immutable.
 *
 * @param limitCents the largest total that is cleared, at least 1
 * @throws IllegalArgumentException when {@code limitCents} is below 1
 */
public record FraudRules(long limitCents, Set<String> flaggedCustomers) {
    /** The rule a refusal names: the order's total is over the limit. */
    static final String OVER_LIMIT = "amount_over_limit";
    /** The rule a refusal names: the customer is flagged. */
    static final String FLAGGED = "flagged_customer";

    public FraudRules {
        if (limitCents < 1) {
            throw new IllegalArgumentException("limitCents must be at least 1");
        }
        flaggedCustomers = Set.copyOf(Objects.requireNonNull(flaggedCustomers, "flaggedCustomers"));
    }

    /** The rule that refuses an order of {@code customerId} for {@code totalCents}; null: cleared. */
    String refusal(String customerId, long totalCents) {
        if (flaggedCustomers.contains(customerId)) {
            return FLAGGED;
        }
        return totalCents > limitCents ? OVER_LIMIT : null;
    }
}
