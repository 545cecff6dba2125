package org.sagas.reconciler;

import org.sagas.orchestrator.messaging.KafkaConnection;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the reconciliation topology as a Kafka Streams application: at least once (a finding may be
 * published twice after a restart, and is stored once by its id: docs/decisions/0029), and
 * standby replicas so that another instance holds a warm copy of each order's state. Instances
 * with the same application id share the work by partitions; when one dies, its partitions move
 * to the others, which go on from the last commit. Thread-safe; start once, close once.
 */
public final class ReconcilerStreams implements AutoCloseable {
    public static final String APPLICATION_ID = "sagas-reconciler";
    private static final Logger log = LoggerFactory.getLogger(ReconcilerStreams.class);

    private final KafkaStreams streams;

    public ReconcilerStreams(ReconcilerConfig config, Properties properties) {
        StreamsInputLag lag = new StreamsInputLag(config.checkInterval().toMillis());
        this.streams = new KafkaStreams(ReconcilerTopology.build(config, lag), properties);
        lag.of(streams);
    }

    /** The Streams settings of an instance; {@code stateDir} must be its own (one per instance). */
    public static Properties properties(KafkaConnection kafka, String applicationId, Path stateDir, int standbys) {
        Properties p = new Properties();
        p.putAll(kafka.config());
        p.put(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        // At least once (docs/decisions/0029): a finding is keyed by a finding id derived from kind,
        // order and subject, its record's message id from that id and its state, and the sink stores
        // it under that primary key and writes its repair in the same transaction; a repair is keyed
        // too. A restart that processes the last second again publishes the same findings again,
        // and the sink takes them once. Exactly-once ended a Kafka transaction every commit
        // (markers on every partition written, an offsets commit, a changelog flush): a fixed cost
        // per second that made an order at 20/s cost twice one at 100/s.
        p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.AT_LEAST_ONCE);
        // What a restart processes again; a finding or a repair a second later costs nothing when
        // grace periods are tens of seconds.
        p.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1_000L);
        p.put(StreamsConfig.NUM_STANDBY_REPLICAS_CONFIG, standbys);
        p.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        p.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        p.put(StreamsConfig.REPLICATION_FACTOR_CONFIG, -1); // the broker's default
        p.put("processing.exception.handler.global.enabled", true);
        // An order's facts come from five topics; a task whose input partition has nothing buffered
        // waits up to this long before going on without it, so the facts meet in timestamp order
        // (a capture is not taken for one of an unknown order because its order's events were slower
        // to fetch). A reconciler can afford the delay: its grace periods are tens of seconds.
        p.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, 1_000L);
        // A dead instance's partitions move on after this, not after the 45 s default.
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 10_000);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 3_000);
        // Idle, the stream thread wakes once per poll.ms (100 ms by default) and its consumer fetches
        // every fetch.max.wait.ms (500): records end both waits at once, so longer ones cost no
        // latency, only wall-clock punctuation runs up to a second late (its checks are due in
        // seconds). The heartbeat thread looks every retry back-off (100 ms by default).
        p.put(StreamsConfig.POLL_MS_CONFIG, 1_000L);
        // Not longer: closing waits behind a fetch held at the broker (at 5 s a stop took 2-5 s).
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG), 1_000);
        // And the broker holds a fetch that whole second unless this much has come: at a low rate
        // each record no longer wakes the stream thread (and the broker answers a fetch) on its
        // own; one fetch a second carries them all. Findings come at most a second later, within
        // grace periods of tens of seconds.
        p.put(StreamsConfig.mainConsumerPrefix(ConsumerConfig.FETCH_MIN_BYTES_CONFIG), 64 * 1024);
        p.put(StreamsConfig.consumerPrefix(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG), 500);
        return p;
    }

    /** Starts processing in the background; a failed stream thread is replaced, visibly. */
    public ReconcilerStreams start() {
        streams.setUncaughtExceptionHandler(e -> {
            log.error("reconciler stream thread failed; replacing it (work resumes from the last commit): {}",
                    e.toString(), e);
            return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
        });
        streams.start();
        return this;
    }

    public KafkaStreams.State state() {
        return streams.state();
    }

    /** The underlying application, for tests and metrics. */
    public KafkaStreams streams() {
        return streams;
    }

    /**
     * Stops, leaving the group: the other instances (or this one's restart) take its partitions at
     * once instead of waiting out the session timeout of a member that is gone.
     */
    @Override
    public void close() {
        streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
                .withTimeout(Duration.ofSeconds(15)));
    }
}
