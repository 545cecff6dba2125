package org.sagas.peers;

/**
 * One contender's round on a database of its own: commit → ack at the steady rate, then, in the
 * round that drains, the backlog's drain and what the outbox table holds afterwards ({@code null}
 * in a latency-only round).
 */
record Round(String contender, int number, double p50Ms, double p99Ms, Drain drain, TableStats table,
        double loadAverage) {

    static Round latency(String contender, int number, Object p50Ms, Object p99Ms) {
        return new Round(contender, number, ((Number) p50Ms).doubleValue(), ((Number) p99Ms).doubleValue(), null,
                null, loadAverage1m());
    }

    Round drained(Drain drain, TableStats table) {
        return new Round(contender, number, p50Ms, p99Ms, drain, table, loadAverage1m());
    }

    /** The machine's 1-minute load average (other work on it shows in the tail), or -1. */
    static double loadAverage1m() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }
}
