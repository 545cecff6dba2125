package org.sagas.peers;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.sagas.migrations.Migrations;
import org.sagas.relay.bench.RelayBenchmark;
import org.sagas.testkit.Infrastructure;

/**
 * Commit → broker acknowledgement at 1 000 messages/s, one message per transaction, for the relay
 * and two peers, each on a database of its own on the same PostgreSQL and broker, in the order
 * A-B-C-C-B-A so that drift during the run (warm-up, other load) weighs on all alike:
 * {@code PeersBenchmark [resultFile]} (default {@code target/bench-peers.json}); keys
 * {@code <contender>_<round>_<figure>}.
 *
 * <ul>
 *   <li>the outbox relay, woken in-process after each commit ({@link RelayBenchmark}'s steady
 *       phase);</li>
 *   <li>Debezium embedded 3.6.1 reading the outbox table from the WAL ({@code pgoutput},
 *       {@code poll.interval.ms=10}) and sending each insert;</li>
 *   <li>gruelbox transaction-outbox 4.2.268, which runs the scheduled send right after the commit
 *       (this version keeps no order between messages).</li>
 * </ul>
 */
public final class PeersBenchmark {
    private static final int RATE = 1000;
    private static final Duration WARM_UP = Duration.ofSeconds(5);
    private static final Duration DURATION = Duration.ofSeconds(10);

    private PeersBenchmark() {}

    public static void main(String[] args) throws Exception {
        Path resultFile = Path.of(args.length > 0 ? args[0] : "target/bench-peers.json");
        PrintStream out = System.out;
        Infrastructure infra = infrastructure();
        Map<String, Object> result = new LinkedHashMap<>();

        // A-B-C then C-B-A: whatever drifts during the run (warm-up, other load) weighs on all alike.
        List<String> order = List.of("relay", "debezium", "transaction_outbox");
        List<String> runs = new java.util.ArrayList<>(order);
        List<String> back = new java.util.ArrayList<>(order);
        java.util.Collections.reverse(back);
        runs.addAll(back);
        Map<String, Integer> round = new java.util.HashMap<>();
        for (String contender : runs) {
            int n = round.merge(contender, 1, Integer::sum);
            Map<String, Object> figures = switch (contender) {
                case "relay" -> relay(infra, out, n);
                case "debezium" -> debezium(infra, out, n);
                default -> transactionOutbox(infra, out, n);
            };
            figures.forEach((k, v) -> result.put(contender + "_" + n + "_" + k, v));
        }

        result.put("events_per_second", RATE);
        result.put("load_average_1m_at_end",
                java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage());
        out.println("commit -> ack at " + RATE + "/s:");
        result.forEach((k, v) -> out.printf("  %-32s %s%n", k, v));
        Files.createDirectories(resultFile.toAbsolutePath().getParent());
        StringBuilder json = new StringBuilder("{\n");
        result.forEach((k, v) -> json.append("  \"").append(k).append("\": ").append(v).append(",\n"));
        json.setLength(json.length() - 2);
        Files.writeString(resultFile, json.append("\n}\n").toString());
        System.exit(0);
    }

    private static Map<String, Object> relay(Infrastructure infra, PrintStream out, int n) throws Exception {
        try (HikariDataSource ds = database(infra, "peers_relay" + n)) {
            Map<String, Object> relay = RelayBenchmark.run(ds, infra.bootstrapServers(), out,
                    Path.of("target", "bench-peers-relay.json"), RelayBenchmark.Options.defaults()
                            .withSteady(RATE, DURATION).withWarmUp(WARM_UP).withPollOnlyPhase(false)
                            .withDrainRows(0).withSustainedEvents(0));
            Map<String, Object> figures = new LinkedHashMap<>();
            for (String key : List.of("p50_ms", "p90_ms", "p99_ms", "max_ms")) {
                figures.put(key, relay.get(key));
            }
            return figures;
        }
    }

    private static Map<String, Object> debezium(Infrastructure infra, PrintStream out, int n) throws Exception {
        try (HikariDataSource ds = database(infra, "peers_debezium" + n)) {
            String topic = topic(infra, "peers-debezium");
            SteadyWriter writer = new SteadyWriter();
            try (DebeziumPeer peer = new DebeziumPeer(infra.jdbcUrl(database(ds)), infra.user(), infra.password(),
                    infra.bootstrapServers(), topic, writer); Connection c = ds.getConnection();
                    PreparedStatement insert = c.prepareStatement("INSERT INTO outbox (aggregate_id, topic,"
                            + " message_id, message_type, correlation_id, payload) VALUES (?, ?, ?, 'Peer', NULL, ?)")) {
                awaitSlot(ds);
                if (!peer.running()) {
                    throw new IllegalStateException("Debezium's engine stopped; see its log above");
                }
                return writer.run("debezium", (id, seq) -> {
                    insert.setString(1, "order-" + seq % 1000);
                    insert.setString(2, topic);
                    insert.setObject(3, id);
                    insert.setString(4, payload(seq));
                    insert.executeUpdate();
                }, RATE, WARM_UP, DURATION, out);
            }
        }
    }

    private static Map<String, Object> transactionOutbox(Infrastructure infra, PrintStream out, int n)
            throws Exception {
        try (HikariDataSource ds = database(infra, "peers_txob" + n)) {
            String topic = topic(infra, "peers-txob");
            SteadyWriter writer = new SteadyWriter();
            try (TransactionOutboxPeer peer = new TransactionOutboxPeer(ds, infra.bootstrapServers(), writer)) {
                return writer.run("transaction-outbox", (id, seq) ->
                        peer.write(topic, "order-" + seq % 1000, payload(seq), id), RATE, WARM_UP, DURATION, out);
            }
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

    private static HikariDataSource database(Infrastructure infra, String prefix) {
        String name = prefix + "_" + ProcessHandle.current().pid();
        infra.createDatabase(name);
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(infra.jdbcUrl(name));
        config.setUsername(infra.user());
        config.setPassword(infra.password());
        config.setMaximumPoolSize(8);
        HikariDataSource ds = new HikariDataSource(config);
        Migrations.apply(ds);
        return ds;
    }

    private static String database(HikariDataSource ds) {
        String url = ds.getJdbcUrl();
        return url.substring(url.lastIndexOf('/') + 1);
    }

    private static String topic(Infrastructure infra, String prefix) throws Exception {
        String topic = prefix + "-" + System.currentTimeMillis();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(topic, 8, (short) 1))).all().get(60, TimeUnit.SECONDS);
        }
        return topic;
    }

    /** Debezium streams only what is written after its replication slot exists. */
    private static void awaitSlot(HikariDataSource ds) throws Exception {
        // pg_replication_slots is cluster-wide: look for this database's slot only.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            try (Connection c = ds.getConnection(); var s = c.createStatement();
                    var rs = s.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE active AND database = current_database()")) {
                rs.next();
                if (rs.getInt(1) > 0) {
                    TimeUnit.SECONDS.sleep(1);
                    return;
                }
            }
            TimeUnit.MILLISECONDS.sleep(200);
        }
        throw new IllegalStateException("Debezium's replication slot did not become active");
    }

    private static String payload(long sequence) {
        return "{\"orderId\":\"peer-" + sequence + "\",\"pad\":\"" + "x".repeat(160) + "\"}";
    }
}
