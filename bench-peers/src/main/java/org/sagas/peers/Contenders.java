package org.sagas.peers;

import com.zaxxer.hikari.HikariDataSource;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.sagas.migrations.Migrations;
import org.sagas.relay.bench.RelayBenchmark;
import org.sagas.testkit.Infrastructure;

/**
 * One round of each contender, each on a database of its own: commit → ack at {@code RATE} (after
 * a warm-up), then, when {@code drainRows > 0}, a backlog of that many rows written while the
 * contender does not publish and timed from the contender's start until all are acknowledged
 * (or {@code DRAIN_CAP} has passed), then the outbox table's statistics once it has closed its
 * connections. Not thread-safe.
 */
final class Contenders {
    static final int RATE = 1000;
    static final Duration WARM_UP = Duration.ofSeconds(5);
    static final Duration DURATION = Duration.ofSeconds(10);
    static final Duration DRAIN_CAP = Duration.ofSeconds(120);
    /** The relay benchmark's own spread of drained rows over aggregates (record keys). */
    static final int AGGREGATES = RelayBenchmark.Options.defaults().aggregates();
    private static final int PREFILL_CHUNK = 20_000;

    private final Infrastructure infra;
    private final PrintStream out;

    Contenders(Infrastructure infra, PrintStream out) {
        this.infra = infra;
        this.out = out;
    }

    /**
     * Not a contender: commits a row and sends a record at {@code RATE} for {@code duration}, so
     * that the broker's JVM and PostgreSQL, both just started, are warm before the first round
     * (whoever ran first paid for their warm-up otherwise).
     */
    void warmUpInfrastructure(Duration duration) throws Exception {
        String name = databaseName("peers_warmup");
        try (HikariDataSource ds = database(name); Connection c = ds.getConnection();
                KafkaProducer<String, String> producer = Kafka.producer(infra.bootstrapServers())) {
            String topic = topic("peers-warmup");
            SteadyWriter writer = new SteadyWriter();
            Acks acks = new Acks(writer, "");
            SteadyWriter.Commit insert = insertAndDelete(c, topic);
            writer.run("infrastructure warm-up (not a contender)", (id, seq) -> {
                insert.commit(id, seq);
                producer.send(Kafka.record(topic, "order-" + seq % 1000, payload(seq), id),
                        (metadata, error) -> acks.acknowledged(topic, id, System.nanoTime()));
            }, RATE, duration, duration, out);
        }
    }

    /** The relay: {@link RelayBenchmark}'s steady phase (woken in-process) and its drain phase. */
    Round relay(int round, int drainRows) throws Exception {
        String name = databaseName("peers_relay" + round);
        Map<String, Object> figures;
        try (HikariDataSource ds = database(name)) {
            figures = RelayBenchmark.run(ds, infra.bootstrapServers(), out, null, RelayBenchmark.Options.defaults()
                    .withSteady(RATE, DURATION).withWarmUp(WARM_UP).withPollOnlyPhase(false)
                    .withDrainRows(drainRows).withSustainedEvents(0));
        }
        Round latency = Round.latency("relay", round, figures.get("p50_ms"), figures.get("p99_ms"));
        if (drainRows == 0) {
            return latency;
        }
        double seconds = ((Number) figures.get("drain_seconds")).doubleValue();
        return latency.drained(new Drain(drainRows, drainRows, seconds, false, -1), stats(name, "outbox"));
    }

    /**
     * Debezium: the writer inserts and deletes the outbox row in one transaction, as Debezium's
     * outbox documentation does (the log keeps the insert; the table stays empty). For the drain,
     * the first engine stops (its slot kept), the backlog is written, and a second engine resumes
     * from the first one's offsets, reading the backlog from the slot.
     */
    Round debezium(int round, int drainRows) throws Exception {
        String name = databaseName("peers_debezium" + round);
        Path offsets = Files.createTempFile("peers-debezium-offsets-", ".dat");
        Round result;
        try (HikariDataSource ds = database(name)) {
            String topic = topic("peers-debezium");
            String drainTopic = drainRows > 0 ? topic("peers-debezium-drain") : "";
            SteadyWriter writer = new SteadyWriter();
            Acks acks = new Acks(writer, drainTopic);
            DebeziumPeer.Settings settings = new DebeziumPeer.Settings(infra.jdbcUrl(name), infra.user(),
                    infra.password(), infra.bootstrapServers(), name, offsets);
            try (DebeziumPeer peer = new DebeziumPeer(settings, drainRows == 0, acks);
                    Connection c = ds.getConnection()) {
                awaitSlot(ds);
                if (!peer.running()) {
                    throw new IllegalStateException("Debezium's engine stopped; see its log above");
                }
                Map<String, Object> figures = writer.run("debezium", insertAndDelete(c, topic), RATE, WARM_UP,
                        DURATION, out);
                result = Round.latency("debezium", round, figures.get("p50_ms"), figures.get("p99_ms"));
            }
            if (drainRows == 0) {
                return result;
            }
            prefill(ds, drainTopic, drainRows, true);
            long start = System.nanoTime();
            Drain drain;
            try (DebeziumPeer peer = new DebeziumPeer(settings, true, acks)) {
                drain = Drain.await("debezium", acks::drained, drainRows, start, DRAIN_CAP, () -> {
                    if (!peer.running()) {
                        throw new IllegalStateException("Debezium's engine stopped; see its log above");
                    }
                    return false;
                }, out);
            }
            result = result.drained(drain, null);
        } finally {
            Files.deleteIfExists(offsets);
        }
        return result.drained(result.drain(), stats(name, "outbox"));
    }

    /** transaction-outbox: its own table; the drain is its {@code flush()} loop over due entries. */
    Round transactionOutbox(int round, int drainRows) throws Exception {
        String name = databaseName("peers_txob" + round);
        Round result;
        try (HikariDataSource ds = database(name)) {
            String topic = topic("peers-txob");
            String drainTopic = drainRows > 0 ? topic("peers-txob-drain") : "";
            SteadyWriter writer = new SteadyWriter();
            Acks acks = new Acks(writer, drainTopic);
            try (TransactionOutboxPeer peer = new TransactionOutboxPeer(ds, infra.bootstrapServers(), acks)) {
                Map<String, Object> figures = writer.run("transaction-outbox", (id, seq) ->
                        peer.write(topic, "order-" + seq % 1000, payload(seq), id), RATE, WARM_UP, DURATION, out);
                result = Round.latency("transaction_outbox", round, figures.get("p50_ms"), figures.get("p99_ms"));
                if (drainRows == 0) {
                    return result;
                }
                long scheduling = System.nanoTime();
                peer.scheduleBacklog(drainTopic, drainRows, AGGREGATES, Contenders::payload);
                out.printf("transaction-outbox: %d entries scheduled in %.1f s (not timed)%n", drainRows,
                        (System.nanoTime() - scheduling) / 1e9);
                long start = System.nanoTime();
                result = result.drained(Drain.await("transaction-outbox", acks::drained, drainRows, start, DRAIN_CAP,
                        peer::flush, out), null);
            }
        }
        return result.drained(result.drain(), stats(name, TransactionOutboxPeer.TABLE));
    }

    /** One outbox row inserted and deleted per transaction on {@code c}; its statements close with it. */
    private static SteadyWriter.Commit insertAndDelete(Connection c, String topic) throws SQLException {
        c.setAutoCommit(false);
        PreparedStatement insert = c.prepareStatement("INSERT INTO outbox (aggregate_id, topic, message_id,"
                + " message_type, correlation_id, payload) VALUES (?, ?, ?, 'Peer', NULL, ?) RETURNING id");
        PreparedStatement delete = c.prepareStatement("DELETE FROM outbox WHERE id = ?");
        return (id, seq) -> {
            insert.setString(1, "order-" + seq % 1000);
            insert.setString(2, topic);
            insert.setObject(3, id);
            insert.setString(4, payload(seq));
            try (ResultSet rs = insert.executeQuery()) {
                rs.next();
                delete.setLong(1, rs.getLong(1));
            }
            delete.executeUpdate();
            c.commit();
        };
    }

    /** {@code rows} outbox rows, {@code PREFILL_CHUNK} per transaction; deleted in the same transaction if asked. */
    private void prefill(HikariDataSource ds, String topic, int rows, boolean deleteInTransaction)
            throws SQLException {
        try (Connection c = ds.getConnection(); PreparedStatement insert = c.prepareStatement(
                "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, correlation_id, payload)"
                        + " SELECT 'drain-' || (g % ?), ?, gen_random_uuid(), 'Peer', NULL, ?"
                        + " FROM generate_series(?, ?) g");
                PreparedStatement delete = c.prepareStatement("DELETE FROM outbox")) {
            c.setAutoCommit(false);
            for (int from = 0; from < rows; from += PREFILL_CHUNK) {
                int to = Math.min(rows, from + PREFILL_CHUNK) - 1;
                insert.setInt(1, AGGREGATES);
                insert.setString(2, topic);
                insert.setString(3, payload(from));
                insert.setInt(4, from);
                insert.setInt(5, to);
                insert.executeUpdate();
                if (deleteInTransaction) {
                    delete.executeUpdate();
                }
                c.commit();
            }
            out.printf("  pre-filled %d rows (not timed)%n", rows);
        }
    }

    private TableStats stats(String database, String table) throws SQLException {
        TableStats stats = TableStats.read(infra.jdbcUrl(database), infra.user(), infra.password(), table);
        out.printf("  %s.%s after the round: n_dead_tup %d, n_live_tup %d; pgstattuple: %d dead, %d live; %d bytes%n",
                database, table, stats.deadTuples(), stats.liveTuples(), stats.exactDeadTuples(),
                stats.exactLiveTuples(), stats.bytes());
        return stats;
    }

    private String databaseName(String prefix) {
        return prefix + "_" + ProcessHandle.current().pid();
    }

    private HikariDataSource database(String name) {
        HikariDataSource ds = infra.newDatabase(name, 8);
        Migrations.apply(ds);
        return ds;
    }

    private String topic(String prefix) throws Exception {
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
                    var rs = s.executeQuery("SELECT count(*) FROM pg_replication_slots"
                            + " WHERE active AND database = current_database()")) {
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

    static String payload(long sequence) {
        return "{\"orderId\":\"peer-" + sequence + "\",\"pad\":\"" + "x".repeat(160) + "\"}";
    }
}
