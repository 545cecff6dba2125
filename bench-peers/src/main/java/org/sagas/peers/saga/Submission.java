package org.sagas.peers.saga;

/**
 * One order the client sent: when it was due (epoch ms; latencies count from then, not from when
 * the client got round to it), how long until the answer, the HTTP status (-1: no answer, -2: not
 * sent because too many were in flight) and the order id answered (null unless 202 or 422).
 */
record Submission(long dueEpochMillis, long latencyMicros, int status, String orderId) {
    boolean accepted() {
        return status == 202;
    }
}
