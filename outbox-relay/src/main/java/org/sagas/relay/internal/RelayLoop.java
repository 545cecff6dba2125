package org.sagas.relay.internal;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.common.KafkaException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The relay's publishing thread: renews leases, reads a batch of its shards' rows, publishes it
 * ({@link PublishRound}), deletes what the broker acknowledged, dead-letters what it refused for
 * good, and waits for a wake-up or the next poll. A database failure drops the session (and so the
 * leases) and reconnects with a backoff; a Kafka failure leaves the rows in place and retries them.
 * Rows are deleted only after their acknowledgement, by the statement that reads the next batch;
 * acknowledged rows whose delete failed are deleted by the next session's first statement, so they
 * are not sent twice.
 *
 * <p>{@link #run()} runs on one thread; {@link #stop()} may be called from any thread.
 */
public final class RelayLoop implements Runnable {
    private static final Logger log = LoggerFactory.getLogger(RelayLoop.class);
    private static final Duration NETWORK_TIMEOUT = Duration.ofSeconds(30);
    private static final long WARN_EVERY_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final long SLOW_ROUND_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final RelaySettings settings;
    private final ShardLeases leases;
    private final WakeSignal wake;
    private final RelayMetrics metrics;
    private final AdaptivePoll poll;
    private final Backoff databaseBackoff = new Backoff(Duration.ofMillis(100), Duration.ofSeconds(2));
    private final Backoff kafkaBackoff = new Backoff(Duration.ofMillis(50), Duration.ofSeconds(1));
    private final List<OutboxRow> undeleted = new ArrayList<>();
    private final AtomicLong deletedRows = new AtomicLong();
    private volatile boolean stopping;
    private volatile Thread thread;
    private RelaySession session;
    private Producer<String, String> producer;
    private long nextLeaseTick = System.nanoTime();
    private long databaseDownSince;
    private long lastKafkaWarning = System.nanoTime() - WARN_EVERY_NANOS;
    /** The last wait before this read ended without a wake-up (its rows, if any, came unannounced). */
    private boolean waitTimedOut;

    public RelayLoop(RelaySettings settings, ShardLeases leases, WakeSignal wake, RelayMetrics metrics) {
        this.settings = settings;
        this.leases = leases;
        this.wake = wake;
        this.metrics = metrics;
        this.poll = new AdaptivePoll(settings.pollInterval(), settings.idlePollInterval());
    }

    /** How many acknowledged rows this relay has deleted so far (for the vacuum decision). */
    public long deletedRows() {
        return deletedRows.get();
    }

    /** Asks the loop to finish its round and stop; returns at once. */
    public void stop() {
        stopping = true;
        wake.signal();
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public void run() {
        thread = Thread.currentThread();
        try {
            while (!stopping) {
                try {
                    cycle();
                    databaseReachable();
                } catch (SQLException | RuntimeException e) {
                    waitTimedOut = false;
                    databaseFailed(e);
                    pause(databaseBackoff.nextNanos());
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            shutdown();
        }
    }

    private void cycle() throws SQLException, InterruptedException {
        if (session == null) {
            session = RelaySession.open(settings.dataSource(), settings.instanceId(), NETWORK_TIMEOUT);
            nextLeaseTick = System.nanoTime();
        }
        long now = System.nanoTime();
        if (now - nextLeaseTick >= 0) {
            // Never hand a shard over with acknowledged rows still in it: the next owner would send them again.
            deleteAcknowledged();
            leases.tick(session);
            nextLeaseTick = now + settings.leaseCheckInterval().toNanos();
        }
        Set<Integer> owned = leases.owned();
        Producer<String, String> kafka = producer();
        if (kafka == null) {
            waitTimedOut = false;
            pause(kafkaBackoff.nextNanos());
            return;
        }
        if (owned.isEmpty()) {
            waitTimedOut = false;
            deleteAcknowledged();
            pause(nextLeaseTick - System.nanoTime());
            return;
        }
        long readStart = System.nanoTime();
        List<OutboxRow> rows = session.deleteAndRead(undeleted,
                owned.size() == ShardLeases.SHARDS ? null : owned, settings.batchSize());
        deletedRows.addAndGet(undeleted.size());
        undeleted.clear();
        if (rows.isEmpty()) {
            waitTimedOut = awaitRows(System.nanoTime());
            return;
        }
        // Rows after a wait that timed out came without a wake-up, unless one came while this read ran
        // (a writer that committed just after the wait ended, e.g. during a lease check): taking those
        // for unannounced would hold the relay to quick looks for a minute for nothing.
        poll.foundRows(waitTimedOut && !wake.pending(), readStart);
        waitTimedOut = false;
        PublishRound round = new PublishRound(kafka, () -> stopping, settings.closeTimeout().toNanos(),
                this::acknowledged);
        long publishStart = System.nanoTime();
        PublishRound.Result result = round.publish(rows);
        long end = System.nanoTime();
        if (end - readStart > SLOW_ROUND_NANOS) {
            log.info("outbox relay {}: slow round: {} rows, read {} ms, publish {} ms", settings.instanceId(),
                    rows.size(), (publishStart - readStart) / 1_000_000, (end - publishStart) / 1_000_000);
        }
        settle(result);
        if (rows.size() < settings.batchSize() && result.retryLater() == null && result.producerBroken() == null
                && poll.trustsWakeUps(end)) {
            // Every row there was is sent, and the next ones will wake us: wait for them here rather
            // than read again at once (the rows just acknowledged are deleted by that next read).
            waitTimedOut = awaitRows(end);
        }
    }

    /**
     * Waits for a wake-up or the poll's pause, at most until the next lease check; whether it timed
     * out on the pause. A wait cut short by the lease check says nothing about the writers: rows
     * found after it are not taken for unannounced (at 100 orders/s one such read a minute held the
     * relay to quick looks for the whole minute).
     */
    private boolean awaitRows(long now) {
        long pause = poll.idlePauseNanos(now);
        long untilLease = Math.max(0, nextLeaseTick - now);
        boolean woken = wake.await(Math.min(pause, untilLease));
        return !woken && pause <= untilLease;
    }

    private void settle(PublishRound.Result result) throws SQLException {
        // Acknowledged rows are deleted by the next read, in the same statement.
        undeleted.addAll(result.acked());
        for (PublishRound.Poisoned p : result.poisoned()) {
            String error = describe(p.error());
            session.deadLetter(p.row(), error);
            metrics.deadLettered();
            log.error("outbox row {} of aggregate {} (topic {}, type {}, message {}) moved to the dead letters: {};"
                    + " later rows of this aggregate wait until it is replayed or discarded", p.row().id(),
                    p.row().aggregateId(), p.row().topic(), p.row().messageType(), p.row().messageId(), error);
        }
        if (result.producerBroken() != null) {
            log.warn("outbox relay {}: producer unusable ({}); starting a new one", settings.instanceId(),
                    describe(result.producerBroken()));
            closeProducer(Duration.ZERO);
        }
        if (result.retryLater() != null || result.producerBroken() != null) {
            metrics.sendFailed();
            warnKafka(result.retryLater() != null ? result.retryLater() : result.producerBroken());
            pause(kafkaBackoff.nextNanos());
        } else {
            kafkaBackoff.reset();
        }
    }

    private void acknowledged(OutboxRow row, long ackNanoTime) {
        metrics.acknowledged(row.createdAt());
        if (settings.publishListener() != null) {
            try {
                settings.publishListener().published(row.messageId(), row.aggregateId(), ackNanoTime);
            } catch (RuntimeException e) {
                log.warn("outbox relay {}: publish listener failed: {}", settings.instanceId(), describe(e));
            }
        }
    }

    private void deleteAcknowledged() throws SQLException {
        if (!undeleted.isEmpty()) {
            session.delete(undeleted);
            deletedRows.addAndGet(undeleted.size());
            undeleted.clear();
        }
    }

    /** The producer, created on first use; null (and a warning) when it cannot be created. */
    private Producer<String, String> producer() {
        if (producer == null) {
            try {
                producer = new KafkaProducer<>(settings.producerConfig());
            } catch (KafkaException e) {
                warnKafka(e);
            }
        }
        return producer;
    }

    private void databaseFailed(Exception e) {
        if (databaseDownSince == 0) {
            databaseDownSince = System.nanoTime();
            log.warn("outbox relay {}: database session failed ({}); reconnecting", settings.instanceId(),
                    describe(e));
        } else {
            log.debug("outbox relay {}: database still unavailable: {}", settings.instanceId(), describe(e));
        }
        leases.lost();
        if (session != null) {
            session.close();
            session = null;
        }
    }

    private void databaseReachable() {
        databaseBackoff.reset();
        if (databaseDownSince != 0) {
            log.info("outbox relay {}: database session back after {} ms", settings.instanceId(),
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - databaseDownSince));
            databaseDownSince = 0;
        }
    }

    private void warnKafka(Exception e) {
        long now = System.nanoTime();
        if (now - lastKafkaWarning >= WARN_EVERY_NANOS) {
            lastKafkaWarning = now;
            log.warn("outbox relay {}: cannot publish ({}); the rows stay in the outbox and are retried in order",
                    settings.instanceId(), describe(e));
        }
    }

    private void pause(long nanos) {
        long deadline = System.nanoTime() + nanos;
        long left;
        while (!stopping && (left = deadline - System.nanoTime()) > 0) {
            LockSupport.parkNanos(this, left);
        }
    }

    private void shutdown() {
        // The producer first: sends still in flight finish (or are aborted) while we hold the leases.
        closeProducer(settings.closeTimeout());
        if (session != null) {
            try {
                deleteAcknowledged();
            } catch (SQLException | RuntimeException e) {
                log.warn("outbox relay {}: {} acknowledged rows could not be deleted at stop and will be sent again",
                        settings.instanceId(), undeleted.size());
            }
            session.close();
            session = null;
        }
        leases.released();
        log.info("outbox relay {} stopped", settings.instanceId());
    }

    private void closeProducer(Duration timeout) {
        if (producer != null) {
            try {
                producer.close(timeout);
            } catch (RuntimeException e) {
                log.debug("outbox relay {}: producer close: {}", settings.instanceId(), e.toString());
            }
            producer = null;
        }
    }

    static String describe(Throwable e) {
        String text = e.getClass().getSimpleName() + ": " + e.getMessage();
        return text.length() > 2000 ? text.substring(0, 2000) : text;
    }
}
