package org.sagas.relay.bench;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import javax.sql.DataSource;
import org.sagas.relay.OutboxRelay;
import org.sagas.relay.OutboxRelayException;

/**
 * The outbox relay benchmark ({@code ./sagas bench relay}), against a migrated database and a
 * running broker:
 *
 * <ol>
 *   <li><b>warm-up</b> (5 s, not measured), then <b>poll only</b>: one writer commits one row per
 *       transaction at a fixed rate (1 000/s for 10 s) and the relay finds the rows by polling
 *       alone, as with a writer in another process;</li>
 *   <li><b>steady</b>: the same, the writer waking the relay in-process after each commit (the
 *       headline figure). Commit → broker acknowledgement is timed per message: the writer's
 *       clock after {@code commit} returns, the producer callback's clock at the acknowledgement,
 *       both {@code System.nanoTime()} in this JVM;</li>
 *   <li><b>drain</b>: 200 000 rows pre-filled while no relay runs, then a relay is started and
 *       timed until the outbox is empty;</li>
 *   <li><b>sustained</b>: 1 000 000 rows written by two writers in batches while the relay keeps
 *       up, then the outbox's size on disk ({@code pg_total_relation_size}: table, indexes, TOAST).</li>
 * </ol>
 *
 * Prints progress and the figures to {@code out} and writes them as JSON to {@code resultFile}.
 * Writes only to a topic of its own ({@code relay-bench-<time>}); leaves the outbox empty. Needs the
 * outbox to itself: throws {@link IllegalStateException} when another relay runs on the database.
 * Not thread-safe: one run at a time per database. Throws {@link OutboxRelayException} when the
 * database fails and {@link UncheckedIOException} when the result cannot be written.
 */
public final class RelayBenchmark {
    private RelayBenchmark() {}

    /** How much work each phase does. */
    public record Options(
            int steadyEventsPerSecond,
            Duration steadyDuration,
            Duration warmUp,
            boolean pollOnlyPhase,
            int drainRows,
            long sustainedEvents,
            int payloadBytes,
            int partitions,
            int aggregates) {

        public Options {
            Objects.requireNonNull(steadyDuration, "steadyDuration");
            Objects.requireNonNull(warmUp, "warmUp");
            if (steadyEventsPerSecond < 1 || drainRows < 0 || sustainedEvents < 0 || payloadBytes < 16
                    || partitions < 1 || aggregates < 1) {
                throw new IllegalArgumentException("invalid benchmark options: " + this);
            }
        }

        /** The figures: 1 000/s for 10 s (after 5 s of warm-up), 200 000 drained, 1 000 000 sustained. */
        public static Options defaults() {
            return new Options(1000, Duration.ofSeconds(10), Duration.ofSeconds(5), true, 200_000, 1_000_000, 200, 8,
                    50_000);
        }

        public Options withSteady(int eventsPerSecond, Duration duration) {
            return new Options(eventsPerSecond, duration, warmUp, pollOnlyPhase, drainRows, sustainedEvents,
                    payloadBytes, partitions, aggregates);
        }

        public Options withWarmUp(Duration warmUp) {
            return new Options(steadyEventsPerSecond, steadyDuration, warmUp, pollOnlyPhase, drainRows,
                    sustainedEvents, payloadBytes, partitions, aggregates);
        }

        public Options withPollOnlyPhase(boolean pollOnlyPhase) {
            return new Options(steadyEventsPerSecond, steadyDuration, warmUp, pollOnlyPhase, drainRows,
                    sustainedEvents, payloadBytes, partitions, aggregates);
        }

        public Options withDrainRows(int drainRows) {
            return new Options(steadyEventsPerSecond, steadyDuration, warmUp, pollOnlyPhase, drainRows,
                    sustainedEvents, payloadBytes, partitions, aggregates);
        }

        public Options withSustainedEvents(long sustainedEvents) {
            return new Options(steadyEventsPerSecond, steadyDuration, warmUp, pollOnlyPhase, drainRows,
                    sustainedEvents, payloadBytes, partitions, aggregates);
        }
    }

    /**
     * Runs every phase and returns the figures: {@code events_per_second} (drain rate),
     * {@code p50_ms}, {@code p99_ms}, {@code max_ms} (commit → ack at the steady rate),
     * {@code outbox_bytes_after}, and more.
     */
    public static Map<String, Object> run(DataSource ds, String bootstrapServers, PrintStream out, Path resultFile,
            Options options) {
        Map<String, Object> result = new LinkedHashMap<>();
        try {
            BenchContext bench = BenchContext.create(ds, bootstrapServers, out, options);
            out.printf("relay benchmark: topic %s (%d partitions), %d cores, load average %.2f, payload %d bytes%n",
                    bench.topic(), options.partitions(), Runtime.getRuntime().availableProcessors(), loadAverage(),
                    options.payloadBytes());
            steady(bench, result);
            drainAndSustain(bench, result);
        } catch (SQLException e) {
            throw new OutboxRelayException("relay benchmark failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new OutboxRelayException("relay benchmark interrupted", e);
        }
        result.put("cores", Runtime.getRuntime().availableProcessors());
        result.put("load_average_1m_at_end", loadAverage());
        result.put("topic_partitions", options.partitions());
        result.put("payload_bytes", options.payloadBytes());
        out.println("relay benchmark figures:");
        result.forEach((k, v) -> out.printf("  %-30s %s%n", k, v));
        write(resultFile, result);
        return result;
    }

    private static void steady(BenchContext bench, Map<String, Object> result)
            throws SQLException, InterruptedException {
        Options o = bench.options();
        try (OutboxRelay relay = bench.startRelay("bench-steady")) {
            bench.awaitEmpty(Duration.ofMinutes(5));
            SteadyPhase phase = new SteadyPhase(bench, relay);
            phase.run("warm-up", o.warmUp(), true);
            if (o.pollOnlyPhase()) {
                Latencies polled = phase.run("steady (poll only, no wake-up)", o.steadyDuration(), false);
                result.put("poll_only_p50_ms", polled.p50Ms());
                result.put("poll_only_p90_ms", polled.p90Ms());
                result.put("poll_only_p99_ms", polled.p99Ms());
                result.put("poll_only_max_ms", polled.maxMs());
            }
            Latencies woken = phase.run("steady (woken after commit)", o.steadyDuration(), true);
            result.put("steady_events", woken.count());
            result.put("steady_events_per_second_target", o.steadyEventsPerSecond());
            result.put("p50_ms", woken.p50Ms());
            result.put("p90_ms", woken.p90Ms());
            result.put("p99_ms", woken.p99Ms());
            result.put("max_ms", woken.maxMs());
        }
    }

    private static void drainAndSustain(BenchContext bench, Map<String, Object> result)
            throws SQLException, InterruptedException {
        Options o = bench.options();
        DrainPhase drain = new DrainPhase(bench);
        drain.prefill(o.drainRows());
        long acknowledgedBefore = bench.acknowledged();
        long start = System.nanoTime();
        try (OutboxRelay relay = bench.startRelay("bench-drain")) {
            double seconds = drain.timeDrain(start, acknowledgedBefore, o.drainRows());
            result.put("drain_rows", o.drainRows());
            result.put("drain_seconds", Math.round(seconds * 1000) / 1000.0);
            result.put("events_per_second", seconds > 0 ? Math.round(o.drainRows() / seconds) : 0);
            result.put("outbox_bytes_after_drain", bench.outboxBytes());
            SustainedPhase.Outcome sustained = new SustainedPhase(bench, relay).run(o.sustainedEvents());
            result.put("sustained_events", o.sustainedEvents());
            result.put("sustained_events_per_second", sustained.eventsPerSecond());
            result.put("outbox_bytes_peak", sustained.peakBytes());
            result.put("outbox_bytes_after", sustained.bytesAfter());
        }
    }

    /** The machine's 1-minute load average (other work on it shows in the latency tail), or -1. */
    private static double loadAverage() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
    }

    private static void write(Path file, Map<String, Object> result) {
        if (file == null) {
            return;
        }
        try {
            Path parent = file.toAbsolutePath().getParent();
            if (parent != null) {
                Files.createDirectories(parent);
            }
            Files.writeString(file, Json.write(result));
        } catch (IOException e) {
            throw new UncheckedIOException("could not write " + file, e);
        }
    }
}
