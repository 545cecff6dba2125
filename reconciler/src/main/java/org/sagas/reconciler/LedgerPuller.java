package org.sagas.reconciler;

import org.sagas.orchestrator.messaging.KafkaConnection;
import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import javax.sql.DataSource;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.lifecycle.Activity;
import org.sagas.orchestrator.lifecycle.Component;
import org.sagas.orchestrator.lifecycle.ComponentHealth;
import org.sagas.orchestrator.lifecycle.JobListener;
import org.sagas.orchestrator.lifecycle.PeriodicJob;
import org.sagas.orchestrator.messaging.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Copies the participants' ledgers into Kafka: pages of {@code GET /charges?since=} and
 * {@code GET /reservations?since=} (what a real provider's listing API would give) go to the
 * compacted topics {@code ledger.charges} and {@code ledger.reservations}, keyed by entry (so that
 * compaction keeps every entry's last state) and partitioned by order ({@link LedgerPartitioning}). The
 * position in each feed is kept in {@code reconciler_feed_position} and moved only after Kafka
 * acknowledged the page, so a restart skips nothing; a page sent again after a crash carries the
 * same entries with the same cursors (and message ids), which the topology counts once.
 *
 * <p>One puller at a time in the whole deployment: each instance tries a PostgreSQL advisory lock
 * on a connection of its own and pulls only while it holds it (the lock goes with the connection
 * if the process dies).
 *
 * <p>A {@link Component} whose rounds are a {@link PeriodicJob} named {@link #NAME}, every {@code
 * period}: a round in which a feed could not be pulled fails (once, naming the feeds; the other
 * feeds were pulled), so it is logged, counted in the {@link JobListener} and shown in {@link
 * #health()}. Thread-safe; {@link #start()} once, {@link #stop} or {@link #close()} once.
 */
public final class LedgerPuller implements Component, AutoCloseable {
    /** The component's and its job's name. */
    public static final String NAME = "ledger-puller";
    private static final Logger log = LoggerFactory.getLogger(LedgerPuller.class);
    private static final long LOCK_ID = 0x5eed_1ed9e7L;
    static final int PAGE = 500;

    /** A participant's feed: its path, its topic, the field that names an entry. */
    public enum Feed {
        CHARGES("charges", Topics.LEDGER_CHARGES, "idempotencyKey", "ChargeChanged"),
        RESERVATIONS("reservations", Topics.LEDGER_RESERVATIONS, "key", "ReservationChanged");

        final String path;
        final String topic;
        final String keyField;
        final String messageType;

        Feed(String path, String topic, String keyField, String messageType) {
            this.path = path;
            this.topic = topic;
            this.keyField = keyField;
            this.messageType = messageType;
        }
    }

    /**
     * Where a feed is read: the participant's base URL, and the bearer token its ledger asks for
     * (the sandboxes' {@code SAGA_SANDBOX_LEDGER_TOKEN}, docs/security.md); an empty token sends none.
     */
    public record Source(URI baseUrl, String bearerToken) {
        public Source {
            java.util.Objects.requireNonNull(baseUrl, "baseUrl");
            bearerToken = bearerToken == null ? "" : bearerToken;
        }

        /** Its {@code toString} names the URL only: the token stays out of logs. */
        @Override
        public String toString() {
            return "Source[" + baseUrl + (bearerToken.isEmpty() ? "" : ", with token") + "]";
        }
    }

    private final Map<Feed, Source> sources;
    private final DataSource dataSource;
    private final KafkaProducer<String, byte[]> producer;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
    private final PeriodicJob job;
    private final MeterRegistry registry;
    private Connection lockConnection;

    /**
     * @param sources each feed's service and token (e.g. the payment provider for {@link Feed#CHARGES})
     * @param jobs told of each round and of each round that failed
     */
    public LedgerPuller(Map<Feed, Source> sources, DataSource dataSource, KafkaConnection kafka, Duration period,
            MeterRegistry registry, JobListener jobs) {
        this.sources = Map.copyOf(sources);
        this.dataSource = dataSource;
        this.registry = registry;
        this.job = new PeriodicJob(NAME, Duration.ZERO, period, this::round, jobs);
        this.producer = new KafkaProducer<>(kafka.config(Map.of(
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                ProducerConfig.LINGER_MS_CONFIG, 5)), new StringSerializer(), new ByteArraySerializer());
    }

    @Override
    public String name() {
        return NAME;
    }

    /**
     * Pulls less often while nothing happens in this process, up to {@code longest} between two
     * rounds; the next touch of {@code activity} (a saga moved) brings a round forward. Keep it
     * well under the reconciler's grace. Call before {@link #start()}.
     */
    public LedgerPuller backingOff(Activity activity, Duration longest) {
        job.backingOff(activity, longest);
        return this;
    }

    @Override
    public void start() {
        job.start();
    }

    @Override
    public ComponentHealth health() {
        return job.health();
    }

    /**
     * One round: if this instance is (or becomes) the puller, reads every feed to its end. A feed
     * that fails does not keep the others from being pulled; the round then throws, naming the
     * feeds that failed. A failure of the lock's connection drops the lock (another instance may
     * take it) and throws.
     */
    void round() {
        PullFailed failed = null;
        try {
            if (!holdsLock()) {
                return;
            }
            for (Feed feed : sources.keySet()) {
                try {
                    while (pullPage(feed) == PAGE) {
                        // a full page: there is more right away
                    }
                } catch (PullFailed e) {
                    Counter.builder("saga.reconciler.pull.failures").tag("feed", feed.path)
                            .description("Ledger feed pages that could not be read or published").register(registry)
                            .increment();
                    PullFailed thisFeed = new PullFailed("ledger feed " + feed.path + " not pulled this round: "
                            + e.getMessage(), e);
                    if (failed == null) {
                        failed = thisFeed;
                    } else {
                        failed.addSuppressed(thisFeed);
                    }
                }
            }
        } catch (SQLException | RuntimeException e) {
            dropLock();
            throw new PullFailed("ledger puller round failed: " + e, e);
        }
        if (failed != null) {
            throw failed;
        }
    }

    /** Reads one page after the stored position, publishes it, then stores the new position. */
    int pullPage(Feed feed) throws SQLException {
        String position = position(feed);
        JsonNode page = fetch(feed, position);
        JsonNode items = page.get("items");
        if (items == null || !items.isArray()) {
            throw new PullFailed(feed.path + " answered without items");
        }
        List<Future<?>> sent = new ArrayList<>();
        String last = position;
        for (JsonNode item : items) {
            String key = item.path(feed.keyField).asText(null);
            String cursor = item.path("cursor").asText(null);
            if (key == null || cursor == null) {
                throw new PullFailed(feed.path + " listed an entry without " + feed.keyField + " or cursor");
            }
            String orderId = item.path("orderId").asText("");
            ProducerRecord<String, byte[]> record = new ProducerRecord<>(feed.topic,
                    LedgerPartitioning.partition(orderId, producer.partitionsFor(feed.topic).size()), key,
                    Json.write(item).getBytes(StandardCharsets.UTF_8));
            UUID messageId = UUID.nameUUIDFromBytes((feed.path + "|" + cursor).getBytes(StandardCharsets.UTF_8));
            record.headers().add(Topics.MESSAGE_ID, messageId.toString().getBytes(StandardCharsets.UTF_8));
            record.headers().add(Topics.MESSAGE_TYPE, feed.messageType.getBytes(StandardCharsets.UTF_8));
            record.headers().add(Topics.CORRELATION_ID, orderId.getBytes(StandardCharsets.UTF_8));
            sent.add(producer.send(record));
            last = cursor;
        }
        producer.flush();
        for (Future<?> f : sent) {
            try {
                f.get();
            } catch (java.util.concurrent.ExecutionException e) {
                throw new PullFailed("Kafka refused a record of " + feed.topic + ": " + e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new PullFailed("interrupted while publishing " + feed.topic);
            }
        }
        if (!sent.isEmpty()) {
            storePosition(feed, last, sent.size());
            Counter.builder("saga.reconciler.ledger.entries").tag("feed", feed.path)
                    .description("Ledger entries copied to Kafka").register(registry).increment(sent.size());
        }
        return sent.size();
    }

    private JsonNode fetch(Feed feed, String position) {
        Source source = sources.get(feed);
        URI uri = source.baseUrl().resolve("/" + feed.path + "?since=" + position + "&limit=" + PAGE);
        HttpRequest.Builder request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(5)).GET();
        if (!source.bearerToken().isEmpty()) {
            request.header("Authorization", "Bearer " + source.bearerToken());
        }
        try {
            HttpResponse<String> answer = http.send(request.build(), HttpResponse.BodyHandlers.ofString());
            if (answer.statusCode() != 200) {
                throw new PullFailed("GET " + uri + " answered " + answer.statusCode() + ": " + answer.body());
            }
            return Json.mapper().readTree(answer.body());
        } catch (java.io.IOException e) {
            throw new PullFailed("GET " + uri + " failed: " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new PullFailed("interrupted");
        }
    }

    private String position(Feed feed) throws SQLException {
        try (PreparedStatement s = lockConnection.prepareStatement(
                "SELECT position FROM reconciler_feed_position WHERE feed = ?")) {
            s.setString(1, feed.path);
            try (ResultSet rs = s.executeQuery()) {
                return rs.next() ? rs.getString(1) : "";
            }
        }
    }

    private void storePosition(Feed feed, String position, int rows) throws SQLException {
        try (PreparedStatement s = lockConnection.prepareStatement("INSERT INTO reconciler_feed_position"
                + " (feed, position, rows_pulled) VALUES (?, ?, ?) ON CONFLICT (feed) DO UPDATE SET"
                + " position = EXCLUDED.position, rows_pulled = reconciler_feed_position.rows_pulled"
                + " + EXCLUDED.rows_pulled, updated_at = now()")) {
            s.setString(1, feed.path);
            s.setString(2, position);
            s.setLong(3, rows);
            s.executeUpdate();
        }
    }

    private boolean holdsLock() throws SQLException {
        if (lockConnection != null && lockConnection.isValid(2)) {
            return true;
        }
        dropLock();
        Connection c = dataSource.getConnection();
        try (PreparedStatement s = c.prepareStatement("SELECT pg_try_advisory_lock(?)")) {
            s.setLong(1, LOCK_ID);
            try (ResultSet rs = s.executeQuery()) {
                if (rs.next() && rs.getBoolean(1)) {
                    lockConnection = c;
                    log.info("this instance now pulls the participants' ledger feeds");
                    return true;
                }
            }
        }
        c.close();
        return false;
    }

    private void dropLock() {
        if (lockConnection != null) {
            try (PreparedStatement s = lockConnection.prepareStatement("SELECT pg_advisory_unlock(?)")) {
                // A pooled connection outlives its close(): the lock must be given back by hand.
                s.setLong(1, LOCK_ID);
                s.execute();
            } catch (SQLException e) {
                log.debug("unlocking the ledger feeds failed (a broken session has released it): {}", e.toString());
            }
            try {
                lockConnection.close();
            } catch (SQLException e) {
                log.debug("closing the puller's connection failed: {}", e.toString());
            }
            lockConnection = null;
        }
    }

    /** A page that could not be read or published: nothing moved, the next round tries again. */
    static final class PullFailed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PullFailed(String message) {
            super(message);
        }

        PullFailed(String message, Throwable cause) {
            super(message, cause);
        }
    }

    @Override
    public boolean stop(Duration bound) {
        boolean stopped = job.stop(bound);
        dropLock();
        producer.close(Duration.ofSeconds(2));
        return stopped;
    }

    @Override
    public void close() {
        stop(Duration.ofSeconds(5));
    }
}
