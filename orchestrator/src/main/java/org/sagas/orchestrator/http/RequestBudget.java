package org.sagas.orchestrator.http;

/**
 * How long a {@code POST /orders} may take: {@code defaultMillis} when the client sends no
 * {@code X-Deadline}, and never more than {@code maxMillis} from its arrival whatever the client
 * sends (a deadline further out is brought in, so no call or wait downstream inherits it).
 */
public record RequestBudget(long defaultMillis, long maxMillis) {
    public RequestBudget {
        if (defaultMillis < 1 || maxMillis < defaultMillis) {
            throw new IllegalArgumentException("need 1 <= default (" + defaultMillis + ") <= max (" + maxMillis + ")");
        }
    }

    /** The deadline of a request that arrived at {@code nowMillis} asking for {@code requestedEpochMillis}. */
    long deadline(long nowMillis, long requestedEpochMillis) {
        return Math.min(requestedEpochMillis, nowMillis + maxMillis);
    }
}
