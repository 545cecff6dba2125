package org.sagas.relay.bench;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import javax.sql.DataSource;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.sagas.relay.OutboxRelay;
import org.sagas.relay.PublishListener;
import org.sagas.relay.internal.RelaySession;

/** What the benchmark's phases share: the database, the topic, the relay factory and the acknowledgements seen. */
final class BenchContext implements PublishListener {
    static final String INSERT = "INSERT INTO outbox (aggregate_id, topic, message_id, message_type, correlation_id,"
            + " payload) VALUES (?, ?, ?, 'BenchEvent', ?, ?)";

    private final DataSource dataSource;
    private final String bootstrapServers;
    private final PrintStream out;
    private final RelayBenchmark.Options options;
    private final String topic;
    private final AtomicLong acknowledged = new AtomicLong();
    private volatile Map<UUID, Long> watched = Map.of();

    private BenchContext(DataSource dataSource, String bootstrapServers, PrintStream out,
            RelayBenchmark.Options options, String topic) {
        this.dataSource = dataSource;
        this.bootstrapServers = bootstrapServers;
        this.out = out;
        this.options = options;
        this.topic = topic;
    }

    static BenchContext create(DataSource dataSource, String bootstrapServers, PrintStream out,
            RelayBenchmark.Options options) throws SQLException {
        try (Connection c = dataSource.getConnection()) {
            int others = RelaySession.liveRelays(c);
            if (others > 0) {
                // Their share of the shards would be published without our timing, and the figures be wrong.
                throw new IllegalStateException(others + " outbox relay(s) already run on this database;"
                        + " the relay benchmark needs the outbox to itself");
            }
        }
        String topic = "relay-bench-" + System.currentTimeMillis();
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers))) {
            admin.createTopics(List.of(new NewTopic(topic, options.partitions(), (short) 1))).all()
                    .get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not create benchmark topic " + topic + ": " + e.getMessage(), e);
        }
        return new BenchContext(dataSource, bootstrapServers, out, options, topic);
    }

    DataSource dataSource() {
        return dataSource;
    }

    PrintStream out() {
        return out;
    }

    RelayBenchmark.Options options() {
        return options;
    }

    String topic() {
        return topic;
    }

    OutboxRelay startRelay(String instanceId) {
        OutboxRelay relay = OutboxRelay.builder()
                .dataSource(dataSource)
                .bootstrapServers(bootstrapServers)
                .meterRegistry(new SimpleMeterRegistry())
                .instanceId(instanceId)
                .publishListener(this)
                .build();
        relay.start();
        return relay;
    }

    /** Records acknowledgement times of the given message ids from now on (others are only counted). */
    Map<UUID, Long> watch() {
        Map<UUID, Long> acks = new ConcurrentHashMap<>();
        watched = acks;
        return acks;
    }

    long acknowledged() {
        return acknowledged.get();
    }

    @Override
    public void published(UUID messageId, String aggregateId, long ackNanoTime) {
        acknowledged.incrementAndGet();
        watched.put(messageId, ackNanoTime);
    }

    String payload(long sequence) {
        StringBuilder p = new StringBuilder("{\"orderId\":\"bench-").append(sequence).append("\",\"pad\":\"");
        while (p.length() < options.payloadBytes() - 2) {
            p.append('x');
        }
        return p.append("\"}").toString();
    }

    long outboxBytes() throws SQLException {
        return queryLong("SELECT pg_total_relation_size('outbox')");
    }

    boolean outboxEmpty() throws SQLException {
        return queryLong("SELECT count(*) FROM (SELECT 1 FROM outbox LIMIT 1) x") == 0;
    }

    long outboxRows() throws SQLException {
        return queryLong("SELECT count(*) FROM outbox");
    }

    void awaitEmpty(Duration timeout) throws SQLException {
        long deadline = System.nanoTime() + timeout.toNanos();
        long rows = outboxRows();
        if (rows > 0) {
            out.printf("outbox holds %d rows from before; waiting for the relay to publish them%n", rows);
        }
        while (!outboxEmpty()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("outbox not empty after " + timeout);
            }
            pause(Duration.ofMillis(50));
        }
    }

    static void pause(Duration d) {
        LockSupport.parkNanos(d.toNanos());
    }

    private long queryLong(String sql) throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement s = c.createStatement();
                ResultSet rs = s.executeQuery(sql)) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
