package org.sagas.peers;

import java.io.PrintStream;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import java.util.concurrent.locks.LockSupport;

/**
 * A backlog drained: {@code drained} of {@code rows} acknowledged in {@code seconds}; {@code capped}
 * when the wall-time cap ended it first, the rate then being over what was drained.
 * {@code firstAckSeconds}: when the first one was seen (start-up cost), -1 when not observed.
 */
record Drain(long rows, long drained, double seconds, boolean capped, double firstAckSeconds) {

    long eventsPerSecond() {
        return seconds > 0 ? Math.round(drained / seconds) : 0;
    }

    /**
     * Waits until {@code acknowledged} reaches {@code rows} or {@code cap} has passed since
     * {@code startNanos}, printing progress each second; {@code step} runs between checks (a peer
     * that must be driven, such as transaction-outbox's flush), and returns whether it did work.
     */
    static Drain await(String label, LongSupplier acknowledged, long rows, long startNanos, Duration cap,
            Step step, PrintStream out) throws Exception {
        long deadline = startNanos + cap.toNanos();
        long nextReport = startNanos + TimeUnit.SECONDS.toNanos(1);
        long firstAck = -1;
        while (acknowledged.getAsLong() < rows && System.nanoTime() < deadline) {
            if (firstAck < 0 && acknowledged.getAsLong() > 0) {
                firstAck = System.nanoTime() - startNanos;
            }
            if (System.nanoTime() > nextReport) {
                nextReport += TimeUnit.SECONDS.toNanos(1);
                out.printf("  %s drain: %d/%d acknowledged%n", label, acknowledged.getAsLong(), rows);
            }
            if (!step.run()) {
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
        }
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        long drained = Math.min(rows, acknowledged.getAsLong());
        Drain drain = new Drain(rows, drained, Math.round(seconds * 1000) / 1000.0, drained < rows,
                firstAck < 0 ? -1 : Math.round(firstAck / 1e6) / 1000.0);
        out.printf("%s drain: %d of %d in %.2f s = %d events/s (first acknowledgement after %.2f s)%s%n", label,
                drained, rows, seconds, drain.eventsPerSecond(), drain.firstAckSeconds(),
                drain.capped() ? ", stopped at the " + cap.toSeconds() + " s cap" : "");
        return drain;
    }

    /** Work done between two checks of the drain; returns false when there was none. */
    @FunctionalInterface
    interface Step {
        boolean run() throws Exception;
    }
}
