package org.sagas.relay;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import javax.sql.DataSource;
import org.sagas.relay.internal.Housekeeping;
import org.sagas.relay.internal.ProducerSettings;
import org.sagas.relay.internal.RelayLoop;
import org.sagas.relay.internal.RelayMetrics;
import org.sagas.relay.internal.RelaySettings;
import org.sagas.relay.internal.ShardLeases;
import org.sagas.relay.internal.WakeSignal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes committed {@code outbox} rows to Kafka and deletes them once acknowledged.
 *
 * <ul>
 *   <li><b>Order:</b> the rows of one aggregate reach Kafka in commit order, keyed by the aggregate,
 *       through an idempotent producer with {@code acks=all}; a later row is sent only after the
 *       earlier one is acknowledged, so it can never overtake it, across retries, broker outages
 *       and relay restarts.</li>
 *   <li><b>Several relays:</b> threads in one JVM or separate processes share the outbox's 64 hash
 *       shards through session-level advisory locks; a relay that dies loses its database session
 *       and its shards are taken over by the others within about one lease check interval.</li>
 *   <li><b>Delivery:</b> at least once. In normal operation, including hand-overs between relays,
 *       each row is published once; after a crash or a lost database session a row may be published
 *       again, with the same {@code message-id} header, which consumers de-duplicate.</li>
 *   <li><b>Poison rows</b> (refused by the broker for good) move to {@code outbox_dead_letter}; the
 *       aggregate's later rows wait (see {@link OutboxDeadLetters}).</li>
 * </ul>
 *
 * <p>The relay holds one connection of the data source for as long as it runs (its leases live in
 * that session) and borrows a second one briefly every metrics interval. {@link #start()} never
 * needs the database or the broker to be up: the background threads connect, and reconnect after
 * failures, by themselves.
 *
 * <p>This class is thread-safe: {@link #start()}, {@link #wakeUp()} and {@link #close()} may be
 * called from any thread.
 */
public final class OutboxRelay implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OutboxRelay.class);

    private final RelaySettings settings;
    private final WakeSignal wake = new WakeSignal();
    private final ShardLeases leases;
    private final RelayMetrics metrics;
    private final RelayLoop loop;
    private final ScheduledExecutorService housekeeping;
    private final Thread loopThread;
    private State state = State.NEW;

    private enum State { NEW, RUNNING, CLOSED }

    private OutboxRelay(RelaySettings settings) {
        this.settings = settings;
        this.leases = new ShardLeases(settings.instanceId());
        this.metrics = new RelayMetrics(settings.meterRegistry(), settings.instanceId(), () -> leases.owned().size());
        this.loop = new RelayLoop(settings, leases, wake, metrics);
        this.loopThread = new Thread(loop, "outbox-relay-" + settings.instanceId());
        this.loopThread.setDaemon(true);
        this.housekeeping = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "outbox-relay-" + settings.instanceId() + "-housekeeping");
            t.setDaemon(true);
            return t;
        });
    }

    public static Builder builder() {
        return new Builder();
    }

    /**
     * Starts the publishing and housekeeping threads and returns at once.
     *
     * @throws IllegalStateException if already started or closed
     */
    public synchronized void start() {
        if (state != State.NEW) {
            throw new IllegalStateException("outbox relay " + settings.instanceId() + " is " + state);
        }
        state = State.RUNNING;
        loopThread.start();
        housekeeping.execute(new BackingOff(new Housekeeping(settings.dataSource(), settings.instanceId(), leases,
                metrics, settings.vacuumThreshold(), loop::deletedRows)));
        log.info("outbox relay {} started", settings.instanceId());
    }

    /**
     * Tells the relay that a writer in this JVM has just committed outbox rows, so it reads now
     * instead of at its next poll. Cheap and non-blocking (an atomic write and at most one unpark);
     * call it after the commit, from any thread. Never throws; does nothing before start or after
     * close.
     */
    public void wakeUp() {
        wake.signal();
    }

    /** This relay's instance id (also its database session's {@code application_name}). */
    public String instanceId() {
        return settings.instanceId();
    }

    /** The outbox shards this relay publishes now (a snapshot, for status pages and tests). */
    public Set<Integer> leasedShards() {
        return leases.owned();
    }

    /**
     * Stops the relay: finishes the round in flight (waiting at most the close timeout for the
     * broker), deletes what was acknowledged, releases the leases and the connection, closes the
     * producer and removes the relay's meters. Idempotent; never throws.
     */
    @Override
    public void close() {
        synchronized (this) {
            if (state == State.CLOSED) {
                return;
            }
            boolean wasRunning = state == State.RUNNING;
            state = State.CLOSED;
            if (!wasRunning) {
                metrics.close();
                housekeeping.shutdownNow();
                return;
            }
        }
        loop.stop();
        housekeeping.shutdownNow();
        try {
            loopThread.join(settings.closeTimeout().multipliedBy(3).toMillis());
            housekeeping.awaitTermination(settings.closeTimeout().toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (loopThread.isAlive()) {
            log.warn("outbox relay {} did not stop within {}; interrupting it", settings.instanceId(),
                    settings.closeTimeout().multipliedBy(3));
            loopThread.interrupt();
        }
        metrics.close();
    }

    /**
     * Configures an {@link OutboxRelay}. Mutable and not thread-safe; {@link #build()} copies it into
     * an immutable relay. Setters throw {@link IllegalArgumentException} or {@link NullPointerException}
     * for invalid values.
     */
    public static final class Builder {
        private DataSource dataSource;
        private String bootstrapServers;
        private MeterRegistry meterRegistry;
        private String instanceId;
        private int batchSize = 2000;
        private Duration pollInterval = Duration.ofMillis(20);
        private Duration idlePollInterval;
        private Duration leaseCheckInterval = Duration.ofSeconds(1);
        private Duration metricsInterval = Duration.ofSeconds(1);
        private long vacuumThreshold = 20_000;
        private Duration closeTimeout = Duration.ofSeconds(5);
        private final Map<String, Object> producerOverrides = new HashMap<>();
        private PublishListener publishListener;

        private Builder() {}

        /** Where the outbox lives (required). Autocommit is set on the connections the relay takes. */
        public Builder dataSource(DataSource dataSource) {
            this.dataSource = Objects.requireNonNull(dataSource, "dataSource");
            return this;
        }

        /** Kafka's {@code bootstrap.servers} (required). */
        public Builder bootstrapServers(String bootstrapServers) {
            this.bootstrapServers = requireText(bootstrapServers, "bootstrapServers");
            return this;
        }

        /** Where the {@code outbox.*} meters go; a private {@link SimpleMeterRegistry} when not set. */
        public Builder meterRegistry(MeterRegistry meterRegistry) {
            this.meterRegistry = Objects.requireNonNull(meterRegistry, "meterRegistry");
            return this;
        }

        /** Names this relay in logs, meters ({@code relay} tag) and {@code pg_stat_activity}; random when not set. */
        public Builder instanceId(String instanceId) {
            this.instanceId = requireText(instanceId, "instanceId");
            return this;
        }

        /** Most rows read and published per round (default 2000). */
        public Builder batchSize(int batchSize) {
            if (batchSize < 1 || batchSize > 100_000) {
                throw new IllegalArgumentException("batchSize must be 1..100000, not " + batchSize);
            }
            this.batchSize = batchSize;
            return this;
        }

        /**
         * The longest pause between two reads when nothing wakes the relay (default 20 ms). After a
         * read that found rows the relay reads again after 1 ms, doubling up to this interval.
         */
        public Builder pollInterval(Duration pollInterval) {
            this.pollInterval = positive(pollInterval, "pollInterval");
            return this;
        }

        /**
         * The longest pause between two reads of an idle relay while every row it found after a
         * wait came with a {@link OutboxRelay#wakeUp()} (default: the {@link #pollInterval}, so
         * off). Writers that wake the relay are unaffected; a row found without a wake-up brings the
         * pause back to the poll interval for a minute, so a writer in another process waits for
         * at most this once (docs/decisions/0024-idle-relay-waits-for-its-wake-up.md). Shorter
         * than the poll interval counts as the poll interval.
         */
        public Builder idlePollInterval(Duration idlePollInterval) {
            this.idlePollInterval = positive(idlePollInterval, "idlePollInterval");
            return this;
        }

        /**
         * How often the relay rebalances its shard leases (default 1 s): a dead relay's shards are
         * taken over within about this interval.
         */
        public Builder leaseCheckInterval(Duration leaseCheckInterval) {
            this.leaseCheckInterval = positive(leaseCheckInterval, "leaseCheckInterval");
            return this;
        }

        /** How often the table-wide gauges are refreshed and vacuum is considered (default 1 s). */
        public Builder metricsInterval(Duration metricsInterval) {
            this.metricsInterval = positive(metricsInterval, "metricsInterval");
            return this;
        }

        /**
         * Dead rows in {@code outbox} (by the statistics, or deleted by this relay since its last
         * vacuum) after which the relay runs {@code VACUUM outbox} (default 20 000).
         */
        public Builder vacuumThreshold(long vacuumThreshold) {
            if (vacuumThreshold < 1) {
                throw new IllegalArgumentException("vacuumThreshold must be positive, not " + vacuumThreshold);
            }
            this.vacuumThreshold = vacuumThreshold;
            return this;
        }

        /** How long {@link OutboxRelay#close()} waits for acknowledgements in flight (default 5 s). */
        public Builder closeTimeout(Duration closeTimeout) {
            this.closeTimeout = positive(closeTimeout, "closeTimeout");
            return this;
        }

        /**
         * Overrides a Kafka producer setting. Refused ({@link IllegalArgumentException} at
         * {@link #build()}): anything but {@code acks=all}, idempotence off, more than five requests
         * in flight, a transactional id.
         */
        public Builder producerProperty(String key, Object value) {
            producerOverrides.put(requireText(key, "key"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** Told about every acknowledged row (measurements, tests); none by default. */
        public Builder publishListener(PublishListener publishListener) {
            this.publishListener = Objects.requireNonNull(publishListener, "publishListener");
            return this;
        }

        /**
         * @throws NullPointerException when the data source or bootstrap servers are missing
         * @throws IllegalArgumentException when a producer override would break order or durability
         */
        public OutboxRelay build() {
            Objects.requireNonNull(dataSource, "dataSource is required");
            Objects.requireNonNull(bootstrapServers, "bootstrapServers is required");
            String id = instanceId != null ? instanceId : "relay-" + UUID.randomUUID().toString().substring(0, 8);
            MeterRegistry registry = meterRegistry != null ? meterRegistry : new SimpleMeterRegistry();
            Map<String, Object> producerConfig = ProducerSettings.build(bootstrapServers, id, producerOverrides);
            return new OutboxRelay(new RelaySettings(dataSource, id, registry, batchSize, pollInterval,
                    idlePollInterval != null ? idlePollInterval : pollInterval, leaseCheckInterval, metricsInterval, vacuumThreshold, closeTimeout, producerConfig,
                    publishListener));
        }

        private static String requireText(String value, String name) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(name + " must not be blank");
            }
            return value;
        }

        private static Duration positive(Duration value, String name) {
            if (value == null || value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(name + " must be positive, not " + value);
            }
            return value;
        }
    }

    /**
     * Runs the housekeeping every metrics interval while there is something to keep, and doubles the
     * wait after each quiet run up to {@link #QUIET_HOUSEKEEPING_FACTOR} intervals: an idle product's
     * relay then reads the outbox's gauges every few seconds, not every second (docs/benchmarks.md,
     * "Idle"). Gauges of an idle outbox do not change; a publish brings the period back on the run after.
     */
    private final class BackingOff implements Runnable {
        private final Housekeeping chores;
        private long delayMillis;

        BackingOff(Housekeeping chores) {
            this.chores = chores;
        }

        @Override
        public void run() {
            chores.run();
            long every = settings.metricsInterval().toMillis();
            delayMillis = chores.quiet() ? Math.min(every * QUIET_HOUSEKEEPING_FACTOR, Math.max(every, delayMillis * 2))
                    : every;
            try {
                housekeeping.schedule(this, delayMillis, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException closed) {
                // the relay is closing: no next run
            }
        }
    }

    /** The longest wait between housekeeping runs of an idle relay, in metrics intervals. */
    static final int QUIET_HOUSEKEEPING_FACTOR = 8;
}
