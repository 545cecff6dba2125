package org.sagas.peers;

import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.sagas.relay.bench.RelayBenchmark;
import org.sagas.testkit.Infrastructure;

/**
 * The relay beside two peers on the same PostgreSQL and broker, each round on a database of its
 * own: {@code PeersBenchmark [resultFile]} (default {@code bench/results/relay-peers.json}).
 * Prints one table, one row per contender, and writes it as a JSON array.
 *
 * <ul>
 *   <li>the outbox relay, woken in-process after each commit ({@link RelayBenchmark}'s steady and
 *       drain phases);</li>
 *   <li>Debezium embedded 3.6.1 with its outbox {@code EventRouter} SMT, reading the outbox table
 *       from the WAL ({@code pgoutput}, {@code poll.interval.ms=10});</li>
 *   <li>gruelbox transaction-outbox 4.2.268, which runs the scheduled send right after the commit
 *       and picks up a backlog with {@code flush()}.</li>
 * </ul>
 *
 * After 10 s of traffic that warms the freshly started broker and PostgreSQL up, rounds run in the
 * order A-B-C-C-B-A so that drift during the run (warm-up, other load) weighs on all alike; every
 * round measures commit → ack at 1 000/s, the second round of each contender also drains
 * {@code DRAIN_ROWS} and reads the outbox table's dead tuples and size. Replication slots left by a
 * Debezium round are dropped at the end, whether the run succeeded or failed.
 */
public final class PeersBenchmark {
    /** As {@code ./sagas bench relay} drains; {@code -Dpeers.drain.rows} for a short trial run. */
    private static final int DRAIN_ROWS = Integer.getInteger("peers.drain.rows",
            RelayBenchmark.Options.defaults().drainRows());
    private static final List<String> ORDER = List.of("relay", "debezium", "transaction_outbox");
    private static final Map<String, String> LABELS = Map.of(
            "relay", "outbox relay (woken in-process)",
            "debezium", "Debezium embedded 3.6.1 + EventRouter (pgoutput, poll 10 ms)",
            "transaction_outbox", "transaction-outbox 4.2.268");

    private PeersBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path resultFile = Path.of(args.length > 0 ? args[0] : "target/bench-results/relay-peers.json");
        PrintStream out = System.out;
        Infrastructure infra = infrastructure();
        out.printf("bench-peers: %d cores, load average %.2f at start%n", Runtime.getRuntime().availableProcessors(),
                Round.loadAverage1m());
        Map<String, List<Round>> rounds = new LinkedHashMap<>();
        ORDER.forEach(c -> rounds.put(c, new ArrayList<>()));
        try {
            Contenders contenders = new Contenders(infra, out);
            contenders.warmUpInfrastructure(Contenders.WARM_UP);
            for (String contender : runOrder()) {
                List<Round> done = rounds.get(contender);
                int round = done.size() + 1;
                int drainRows = round == 2 ? DRAIN_ROWS : 0;
                out.printf("== %s, round %d%s ==%n", contender, round, drainRows > 0 ? ", with drain" : "");
                done.add(switch (contender) {
                    case "relay" -> contenders.relay(round, drainRows);
                    case "debezium" -> contenders.debezium(round, drainRows);
                    default -> contenders.transactionOutbox(round, drainRows);
                });
            }
        } finally {
            dropSlots(infra, out);
        }
        ResultTable table = new ResultTable();
        rounds.forEach((contender, done) -> table.add(LABELS.get(contender), done));
        out.printf("%nrelays side by side (drain: %d rows, capped at %d s; p50/p99: the better of 2 rounds of"
                + " 10 s at %d/s); load average %.2f at end:%n", DRAIN_ROWS, Contenders.DRAIN_CAP.toSeconds(),
                Contenders.RATE, Round.loadAverage1m());
        table.print(out);
        table.write(resultFile);
        out.println("written to " + resultFile.toAbsolutePath());
        System.exit(0);
    }

    /** A-B-C then C-B-A. */
    private static List<String> runOrder() {
        List<String> runs = new ArrayList<>(ORDER);
        List<String> back = new ArrayList<>(ORDER);
        Collections.reverse(back);
        runs.addAll(back);
        return runs;
    }

    private static void dropSlots(Infrastructure infra, PrintStream out) throws Exception {
        String postgres = infra.jdbcUrl("postgres");
        List<String> left = Slots.dropLeftovers(postgres, infra.user(), infra.password());
        List<String> all = Slots.all(postgres, infra.user(), infra.password());
        out.printf("replication slots left on the server: %s%n", all.isEmpty() ? "none" : all);
        if (!left.isEmpty()) {
            throw new IllegalStateException("replication slots still active, not dropped: " + left);
        }
    }

    /**
     * The test infrastructure; its broker (a child JVM on this JVM's class path) must run from the
     * product's Kafka 4.4 jars, given as {@code -Dpeers.broker.classpath}, not from this module's
     * 4.3 clients.
     */
    private static Infrastructure infrastructure() {
        String own = System.getProperty("java.class.path");
        String broker = System.getProperty("peers.broker.classpath");
        if (broker == null) {
            throw new IllegalStateException("-Dpeers.broker.classpath is required (see bench-peers/run.sh)");
        }
        System.setProperty("java.class.path", broker);
        try {
            return Infrastructure.get();
        } finally {
            System.setProperty("java.class.path", own);
        }
    }
}
