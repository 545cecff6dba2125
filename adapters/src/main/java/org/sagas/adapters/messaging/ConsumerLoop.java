package org.sagas.adapters.messaging;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.sagas.orchestrator.messaging.KafkaConnection;
import org.sagas.orchestrator.messaging.MessageContracts;
import org.sagas.orchestrator.messaging.Topics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Consumes one topic in a group, at least once, handing each poll's records of a partition to the
 * handler in batches (one transaction each, for example): offsets are committed only past what the
 * handler finished, so handlers must be idempotent (the inbox makes them so). A batch that fails
 * as a whole is handled again one record at a time, so that one bad record holds up only itself.
 *
 * <p>A record whose handling fails is <em>set aside</em>, not waited for: the records behind it,
 * in its partition and the others, go on, while it is tried again with back-off (100 ms doubling
 * to 5 s) for at most {@code retryFor}; then it goes to {@code <topic>.dlt} with the reason in
 * header {@code dlt-reason}, after the {@link DeadLetterListener} made it an incident for its
 * order. A record the handler rejects (or a {@link PoisonMessage}) goes there at once, the same
 * way. The committed offset of a partition never passes a record still set aside, so a restart
 * reads it again. Before any handler sees it, a record is held to its message type's schema
 * ({@link MessageContracts}, docs/events.md): one that breaks it goes to the dead-letter topic at
 * once with the violations as reason ({@link DeadLetterCause#SCHEMA_VIOLATION}), counted in {@code
 * saga_contract_violations_total} and logged with its key; fields the schema does not know pass.
 * With {@link #MAX_WAITING} records set aside, fetching pauses until they clear (a
 * database outage then holds the consumer instead of filling memory). Runs on its own thread;
 * {@link #close()} stops it.
 */
public final class ConsumerLoop implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConsumerLoop.class);

    /** How long a failing record is tried again unless the caller says otherwise. */
    public static final Duration DEFAULT_RETRY_FOR = Duration.ofSeconds(60);
    /** The most records handled together: bounds a transaction and the wait between two yields. */
    static final int MAX_BATCH = 20;
    /** With this many records set aside, fetching pauses until some clear. */
    static final int MAX_WAITING = 100;
    /**
     * The longest one poll waits when nothing is set aside: records end it as soon as they come,
     * so this only sets how often an idle loop wakes (docs/benchmarks.md, "Idle").
     */
    static final Duration IDLE_POLL = Duration.ofSeconds(5);
    /** The longest a finished record's offset waits to be committed (while the loop runs). */
    static final Duration COMMIT_EVERY = Duration.ofSeconds(1);
    /** Only on the loop's thread: when progress was last committed, and whether some is not yet. */
    private long lastCommitNanos = System.nanoTime() - COMMIT_EVERY.toNanos();
    private boolean uncommitted;
    /**
     * How long the broker holds an empty fetch: it answers as soon as a record arrives, so this
     * too only bounds an idle consumer's fetches (one per this, not two a second).
     */
    static final int FETCH_MAX_WAIT_MS = 5_000;

    private final String topic;
    private final KafkaConsumer<String, byte[]> consumer;
    private final KafkaProducer<String, byte[]> deadLetters;
    private final BatchHandler handler;
    private final BatchGate beforeEachBatch;
    private final Duration retryFor;
    private final DeadLetterListener onDeadLetter;
    private final Thread thread;
    /** Set before {@link #start()}: the loop's thread sees it through Thread.start. Null: offset order. */
    private java.util.function.Function<ConsumerRecord<String, byte[]>, String> clientOf;
    private volatile boolean running = true;
    private final Counter retried;
    private final Counter deadLettered;
    private final MessageContracts contracts = MessageContracts.standard();
    /** Per message type of the topic: its records that broke their schema (zero from the start, to alert on). */
    private final Map<String, Counter> violations = new HashMap<>();
    private final RetryQueue waiting = new RetryQueue();
    private static final java.util.concurrent.atomic.AtomicInteger INSTANCES =
            new java.util.concurrent.atomic.AtomicInteger();
    /** Per partition: the offset after the last record finished (handled, dead-lettered or set aside). */
    private final Map<TopicPartition, Long> next = new HashMap<>();
    private final Map<TopicPartition, Long> committed = new HashMap<>();

    /** Handles records of one partition together, in their order. */
    @FunctionalInterface
    public interface BatchHandler {
        /**
         * @return the records not processed, each with why and its {@link Fate}: to the dead-letter
         *     topic, or set aside for another process; the others counted as done
         * @throws RuntimeException when the batch failed as a whole and none of its effects stayed
         */
        List<Rejected> handle(List<ConsumerRecord<String, byte[]>> records);
    }

    /** Why a record went to the dead-letter topic, as the header {@code dlt-cause} names it. */
    public enum DeadLetterCause {
        /** It broke its message type's schema: no handler saw it. */
        SCHEMA_VIOLATION,
        /** Its handler rejected it (it cannot be parsed or carried out). */
        REJECTED,
        /** Its handling kept failing for the retry time. */
        FAILING;

        /** The header a dead letter carries its cause in. */
        public static final String HEADER = "dlt-cause";
    }

    /** A record the handler did not process, why, and what becomes of it. */
    public record Rejected(ConsumerRecord<String, byte[]> record, String reason, Fate fate) {
        /** A record that can never be processed: dead-lettered. */
        public Rejected(ConsumerRecord<String, byte[]> record, String reason) {
            this(record, reason, Fate.DEAD_LETTER);
        }
    }

    /** What becomes of a record its handler did not process. */
    public enum Fate {
        /** No process can ever process it: to the dead-letter topic at once. */
        DEAD_LETTER,
        /**
         * This process cannot, another can (a build with a saga version this one lacks): set aside and
         * tried again with back-off for as long as it takes, never dead-lettered; the committed offset
         * stays before it, so the process that reads its partition next (after a rebalance, a restart)
         * reads it again.
         */
        LEFT_FOR_ANOTHER_PROCESS
    }

    /** Told about each record before it goes to the dead-letter topic (e.g. to raise an incident). */
    @FunctionalInterface
    public interface DeadLetterListener {
        DeadLetterListener NONE = (record, reason, cause) -> {};

        /**
         * Called before {@code record} is published to the dead-letter topic with {@code reason} and
         * {@code cause}; may be called again for the same record. Throwing keeps the record set aside
         * (tried again).
         */
        void deadLettering(ConsumerRecord<String, byte[]> record, String reason, DeadLetterCause cause);
    }

    /** Runs before each batch is handled, and may hold it back. */
    @FunctionalInterface
    public interface BatchGate {
        /** Holds nothing back. */
        BatchGate NONE = oldestEpochMillis -> { };

        /**
         * @param oldestEpochMillis when the batch's oldest record was written to Kafka (its
         *     timestamp; now for a record without one)
         */
        void beforeBatch(long oldestEpochMillis);
    }

    /** As the full constructor, retrying a failing record for {@link #DEFAULT_RETRY_FOR}, telling no one. */
    public ConsumerLoop(KafkaConnection kafka, String group, String topic, BatchHandler handler,
            BatchGate beforeEachBatch, MeterRegistry registry) {
        this(kafka, group, topic, handler, beforeEachBatch, registry, DEFAULT_RETRY_FOR,
                DeadLetterListener.NONE);
    }

    /**
     * @param beforeEachBatch runs before each batch is handled, given its oldest record's time
     *     (e.g. waits while clients are busy, see {@code ForegroundFirst}); {@link BatchGate#NONE}
     *     for nothing
     * @param retryFor how long a record whose handling keeps failing is tried again before it is
     *     dead-lettered
     */
    public ConsumerLoop(KafkaConnection kafka, String group, String topic, BatchHandler handler,
            BatchGate beforeEachBatch, MeterRegistry registry, Duration retryFor, DeadLetterListener onDeadLetter) {
        this(kafka, group, topic, handler, beforeEachBatch, registry, retryFor, onDeadLetter, Map.of());
    }

    /**
     * As above, with consumer properties on top of the loop's own (e.g. {@code isolation.level}
     * {@code read_committed} for a topic written in Kafka transactions).
     */
    public ConsumerLoop(KafkaConnection kafka, String group, String topic, BatchHandler handler,
            BatchGate beforeEachBatch, MeterRegistry registry, Duration retryFor, DeadLetterListener onDeadLetter,
            Map<String, Object> consumerOverrides) {
        this.topic = topic;
        this.handler = handler;
        this.beforeEachBatch = beforeEachBatch;
        this.retryFor = retryFor;
        this.onDeadLetter = onDeadLetter;
        contracts.all().stream().filter(c -> c.topic().equals(topic)).forEach(c -> violations.computeIfAbsent(
                c.type(), type -> Counter.builder("saga.contract.violations").tag("topic", topic)
                        .tag("message_type", type)
                        .description("Records that broke their message type's schema, dead-lettered unread")
                        .register(registry)));
        this.retried = Counter.builder("saga.consumer.retries").tag("topic", topic)
                .description("Records whose handling failed and will be retried").register(registry);
        this.deadLettered = Counter.builder("saga.dead.lettered").tag("topic", topic)
                .description("Records moved to the dead-letter topic").register(registry);
        // One series per loop (several consume a topic in one process); sum them by topic.
        Gauge.builder("saga.consumer.waiting", waiting, RetryQueue::size).tag("topic", topic)
                .tag("consumer", Integer.toString(INSTANCES.incrementAndGet()))
                .description("Records set aside after a failure, waiting to be tried again").register(registry);
        Properties c = new Properties();
        c.putAll(kafka.config());
        c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 200);
        // The broker answers as soon as a record arrives; the wait only bounds idle fetches.
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, FETCH_MAX_WAIT_MS);
        // A killed process's partitions move to the survivors (or to its own restart, which must
        // wait for the dead member to leave the group) after this, not after the 45 s default.
        c.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, 10_000);
        c.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, 3_000);
        // The heartbeat thread looks whether a heartbeat is due every retry back-off (100 ms by
        // default: ten wake-ups a second per consumer, idle or not); failed requests are retried
        // after it too, growing to retry.backoff.max.ms (1 s) as before.
        c.put(ConsumerConfig.RETRY_BACKOFF_MS_CONFIG, 500);
        c.putAll(consumerOverrides);
        this.consumer = new KafkaConsumer<>(c, new StringDeserializer(), new ByteArrayDeserializer());
        this.deadLetters = new KafkaProducer<>(kafka.config(Map.of(
                ProducerConfig.ACKS_CONFIG, "all", ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true)),
                new StringSerializer(), new ByteArraySerializer());
        this.thread = new Thread(this::run, "consumer-" + topic);
        this.thread.setDaemon(true);
    }

    /**
     * Takes each poll's records of a partition in turns by client ({@code clientOf}: whose the record
     * is), each client's own in their order, instead of in offset order: a client with a backlog in
     * the partition gets a fair share of the consumer beside the others, not all of it before them.
     * Offsets are committed after the whole poll, as always, so the order of handling costs no
     * safety. Call before {@link #start()}.
     */
    public ConsumerLoop fairShare(java.util.function.Function<ConsumerRecord<String, byte[]>, String> clientOf) {
        this.clientOf = clientOf;
        return this;
    }

    /** The records in turns by client: the first of each, then the second of each, ... (see {@link #fairShare}). */
    static List<ConsumerRecord<String, byte[]>> inTurns(List<ConsumerRecord<String, byte[]>> records,
            java.util.function.Function<ConsumerRecord<String, byte[]>, String> clientOf) {
        Map<String, java.util.ArrayDeque<ConsumerRecord<String, byte[]>>> byClient = new java.util.LinkedHashMap<>();
        for (ConsumerRecord<String, byte[]> r : records) {
            byClient.computeIfAbsent(String.valueOf(clientOf.apply(r)), c -> new java.util.ArrayDeque<>()).add(r);
        }
        if (byClient.size() < 2) {
            return records;
        }
        List<ConsumerRecord<String, byte[]>> turns = new java.util.ArrayList<>(records.size());
        while (turns.size() < records.size()) {
            for (java.util.ArrayDeque<ConsumerRecord<String, byte[]>> queue : byClient.values()) {
                if (!queue.isEmpty()) {
                    turns.add(queue.poll());
                }
            }
        }
        return turns;
    }

    public ConsumerLoop start() {
        thread.start();
        return this;
    }

    private void run() {
        consumer.subscribe(List.of(topic), new ConsumerRebalanceListener() {
            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                commitProgress(partitions);
                forget(partitions);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                // Nothing to set up: a partition's records are read from its committed offset.
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                forget(partitions);
            }
        });
        Duration backoff = Duration.ofMillis(100);
        while (running) {
            try {
                retryDue();
                pauseWhileManyWait();
                ConsumerRecords<String, byte[]> records = consumer.poll(pollTimeout());
                for (TopicPartition partition : records.partitions()) {
                    List<ConsumerRecord<String, byte[]>> all = clientOf == null ? records.records(partition)
                            : inTurns(records.records(partition), clientOf);
                    for (int from = 0; from < all.size(); from += MAX_BATCH) {
                        List<ConsumerRecord<String, byte[]>> batch = all.subList(from, Math.min(all.size(),
                                from + MAX_BATCH));
                        List<ConsumerRecord<String, byte[]>> kept = keptToContract(batch);
                        if (!kept.isEmpty()) {
                            process(kept);
                        }
                        finished(batch.get(batch.size() - 1));
                    }
                }
                commitProgressDue();
                backoff = Duration.ofMillis(100);
            } catch (WakeupException e) {
                // closing
            } catch (RuntimeException e) {
                if (!running) {
                    break;
                }
                // The loop itself failed (the broker, a commit): start over from the committed offsets.
                log.warn("consumer of {} failed, retrying from the last committed offset in {} ms: {}", topic,
                        backoff.toMillis(), e.toString());
                waiting.clear();
                next.clear();
                committed.clear();
                rewind();
                sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(Duration.ofSeconds(5)) > 0 ? Duration.ofSeconds(5)
                        : backoff.multipliedBy(2);
            }
        }
        try {
            commitProgress(next.keySet());
        } catch (RuntimeException e) {
            // Not committed: a restart handles these records again, and the inbox takes them once.
            log.warn("consumer of {} stopped without committing its last progress: {}", topic, e.toString());
        }
        // The loop committed its offsets; closing leaves the group on the coordinator's connection at
        // once. What it would wait for past that is the fetch session's close, queued behind a fetch that
        // the broker may hold FETCH_MAX_WAIT_MS: not worth a stop that long (each consumer of a stopping
        // process took 5 s).
        consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(CLOSE_WAIT));
        deadLetters.close(Duration.ofSeconds(5));
    }

    /** The longest a closing consumer waits for its last requests. */
    private static final Duration CLOSE_WAIT = Duration.ofMillis(500);

    /**
     * Until the next record set aside is due, or progress not committed yet is, at most
     * {@link #IDLE_POLL}: records end it at once.
     */
    private Duration pollTimeout() {
        long now = System.nanoTime();
        long left = IDLE_POLL.toNanos();
        var due = waiting.nextDueNanos();
        if (due.isPresent()) {
            left = Math.min(left, due.getAsLong() - now);
        }
        if (uncommitted) {
            left = Math.min(left, lastCommitNanos + COMMIT_EVERY.toNanos() - now);
        }
        return Duration.ofNanos(Math.max(0, left));
    }

    /**
     * Commits what the handler finished at most once per {@link #COMMIT_EVERY}: a commit per poll
     * made each record at a low rate pay an offsets write of its own, where a busier moment shares
     * one among many (docs/decisions/0029). What a crash leaves uncommitted is handled again, and
     * the inbox takes it once.
     */
    private void commitProgressDue() {
        if (System.nanoTime() - lastCommitNanos < COMMIT_EVERY.toNanos()) {
            uncommitted = true;
            return;
        }
        commitProgress(next.keySet());
        lastCommitNanos = System.nanoTime();
        uncommitted = false;
    }

    private static long oldest(List<ConsumerRecord<String, byte[]>> batch) {
        long oldest = System.currentTimeMillis();
        for (ConsumerRecord<String, byte[]> record : batch) {
            if (record.timestamp() >= 0 && record.timestamp() < oldest) {
                oldest = record.timestamp();
            }
        }
        return oldest;
    }

    /**
     * The records of {@code batch} that keep their schema (or have none); the others are dead-lettered
     * here, or set aside when that fails. A body that is not JSON is the handler's to refuse, in its words.
     */
    private List<ConsumerRecord<String, byte[]>> keptToContract(List<ConsumerRecord<String, byte[]>> batch) {
        List<ConsumerRecord<String, byte[]>> kept = null;
        for (int i = 0; i < batch.size(); i++) {
            ConsumerRecord<String, byte[]> record = batch.get(i);
            java.util.Optional<MessageContracts.Violation> violation = violation(record);
            if (violation.isEmpty()) {
                if (kept != null) {
                    kept.add(record);
                }
                continue;
            }
            if (kept == null) {
                kept = new java.util.ArrayList<>(batch.subList(0, i));
            }
            if (!deadLetter(record, violation.get().reason(), DeadLetterCause.SCHEMA_VIOLATION)) {
                waiting.add(record, System.nanoTime(), "could not be dead-lettered: " + violation.get().reason());
            }
        }
        return kept == null ? batch : kept;
    }

    /** The record's violation of its schema, counted and logged with its key, if it breaks it. */
    private java.util.Optional<MessageContracts.Violation> violation(ConsumerRecord<String, byte[]> record) {
        String type = ParsedMessage.header(record, Topics.MESSAGE_TYPE);
        if (ParsedMessage.header(record, Topics.MESSAGE_ID) == null) {
            // The envelope before the body: a record without its headers is its handler's to refuse, for that.
            return java.util.Optional.empty();
        }
        if (!(contracts.check(record.topic(), type, record.value()) instanceof MessageContracts.Violation v)) {
            return java.util.Optional.empty();
        }
        Counter counter = violations.get(v.contract().type());
        if (counter != null) {
            counter.increment();
        }
        log.warn("{} record {} for order {} breaks its schema, dead-lettered: {}", topic, type, record.key(),
                v.reason());
        return java.util.Optional.of(v);
    }

    /** Handles {@code batch}; each of its records ends handled, dead-lettered or set aside. */
    private void process(List<ConsumerRecord<String, byte[]>> batch) {
        beforeEachBatch.beforeBatch(oldest(batch));
        List<Rejected> rejected;
        try {
            rejected = handler.handle(batch);
        } catch (PoisonMessage poison) {
            if (batch.size() > 1) {
                batch.forEach(r -> process(List.of(r)));
                return;
            }
            rejected = List.of(new Rejected(batch.get(0), poison.getMessage()));
        } catch (RuntimeException e) {
            if (batch.size() > 1) {
                log.debug("{} batch of {} failed, handled again one record at a time: {}", topic, batch.size(),
                        e.toString());
                batch.forEach(r -> process(List.of(r)));
                return;
            }
            setAside(batch.get(0), e);
            finished(batch.get(0));
            return;
        }
        for (Rejected r : rejected) {
            if (r.fate() == Fate.LEFT_FOR_ANOTHER_PROCESS) {
                waiting.add(r.record(), System.nanoTime(), r.reason());
            } else if (!deadLetter(r.record(), r.reason(), DeadLetterCause.REJECTED)) {
                waiting.add(r.record(), System.nanoTime(), "could not be dead-lettered: " + r.reason());
            }
        }
        finished(batch.get(batch.size() - 1));
    }

    /** The fallback for a failed effect is to try it again later: visible with the order and the cause. */
    private void setAside(ConsumerRecord<String, byte[]> record, RuntimeException e) {
        retried.increment();
        log.warn("{} record for order {} failed; set aside and tried again for up to {} s while the others go on:"
                + " {}", topic, record.key(), retryFor.toSeconds(), e.toString());
        waiting.add(record, System.nanoTime(), e.toString());
    }

    /** Tries again the records set aside whose back-off has passed; dead-letters those failing too long. */
    private void retryDue() {
        long now = System.nanoTime();
        for (RetryQueue.Waiting w : waiting.due(now)) {
            if (!running) {
                return;
            }
            java.util.Optional<MessageContracts.Violation> violation = violation(w.record);
            if (violation.isPresent()) {
                if (deadLetter(w.record, violation.get().reason(), DeadLetterCause.SCHEMA_VIOLATION)) {
                    waiting.remove(w);
                } else {
                    w.failedAgain(now, "could not be dead-lettered: " + violation.get().reason());
                }
                continue;
            }
            List<Rejected> rejected;
            try {
                rejected = handler.handle(List.of(w.record));
            } catch (PoisonMessage poison) {
                rejected = List.of(new Rejected(w.record, poison.getMessage()));
            } catch (RuntimeException e) {
                retried.increment();
                if (w.failingFor(retryFor, now)) {
                    String reason = "handling kept failing for " + retryFor.toSeconds() + " s (" + w.failures
                            + " attempts): " + e;
                    if (deadLetter(w.record, reason, DeadLetterCause.FAILING)) {
                        waiting.remove(w);
                        continue;
                    }
                }
                w.failedAgain(now, e.toString());
                continue;
            }
            java.util.Optional<Rejected> left = rejected.stream()
                    .filter(r -> r.fate() == Fate.LEFT_FOR_ANOTHER_PROCESS).findFirst();
            if (left.isPresent()) {
                // Still not this process's: it waits, backing off, with no bound (Fate).
                w.failedAgain(now, left.get().reason());
                continue;
            }
            waiting.remove(w);
            log.info("{} record for order {} went through on attempt {}", topic, w.record.key(), w.failures + 1);
            for (Rejected r : rejected) {
                if (!deadLetter(r.record(), r.reason(), DeadLetterCause.REJECTED)) {
                    waiting.add(r.record(), now, "could not be dead-lettered: " + r.reason());
                }
            }
        }
    }

    private void pauseWhileManyWait() {
        var assigned = consumer.assignment();
        if (waiting.size() >= MAX_WAITING) {
            if (consumer.paused().size() < assigned.size()) {
                log.warn("consumer of {}: {} records set aside; fetching paused until they clear", topic,
                        waiting.size());
                consumer.pause(assigned);
            }
        } else if (!consumer.paused().isEmpty()) {
            consumer.resume(consumer.paused());
        }
    }

    private void finished(ConsumerRecord<String, byte[]> record) {
        next.merge(new TopicPartition(record.topic(), record.partition()), record.offset() + 1, Math::max);
    }

    /** Commits, for {@code partitions}, up to what finished but never past a record set aside. */
    private void commitProgress(Collection<TopicPartition> partitions) {
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (TopicPartition p : partitions) {
            Long done = next.get(p);
            if (done == null) {
                continue;
            }
            long safe = Math.min(done, waiting.lowestOffset(p).orElse(Long.MAX_VALUE));
            if (!Long.valueOf(safe).equals(committed.get(p))) {
                offsets.put(p, new OffsetAndMetadata(safe));
            }
        }
        if (!offsets.isEmpty()) {
            consumer.commitSync(offsets);
            offsets.forEach((p, o) -> committed.put(p, o.offset()));
        }
    }

    private void forget(Collection<TopicPartition> partitions) {
        waiting.drop(partitions);
        next.keySet().removeAll(partitions);
        committed.keySet().removeAll(partitions);
    }

    /**
     * Publishes {@code record} to the dead-letter topic after telling the listener.
     *
     * @return false when either failed: the caller keeps the record and tries again later
     */
    private boolean deadLetter(ConsumerRecord<String, byte[]> record, String reason, DeadLetterCause cause) {
        try {
            onDeadLetter.deadLettering(record, reason, cause);
        } catch (RuntimeException e) {
            log.warn("{} record for order {} not dead-lettered yet: its listener failed ({})", topic, record.key(),
                    e.toString());
            return false;
        }
        ProducerRecord<String, byte[]> dead = new ProducerRecord<>(Topics.deadLetter(topic), record.key(),
                record.value());
        record.headers().forEach(h -> dead.headers().add(h));
        dead.headers().add(Topics.DLT_REASON, reason.getBytes(StandardCharsets.UTF_8));
        dead.headers().add(DeadLetterCause.HEADER, cause.name().getBytes(StandardCharsets.UTF_8));
        dead.headers().add("dlt-source", (record.topic() + "/" + record.partition() + "@" + record.offset())
                .getBytes(StandardCharsets.UTF_8));
        try {
            deadLetters.send(dead).get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            log.warn("could not dead-letter {}/{}@{} (order {}); kept and tried again: {}", record.topic(),
                    record.partition(), record.offset(), record.key(), e.toString());
            return false;
        }
        deadLettered.increment();
        log.warn("dead-lettered {}/{}@{} key {} to {}: {}", record.topic(), record.partition(), record.offset(),
                record.key(), Topics.deadLetter(topic), reason);
        return true;
    }

    /** Goes back to the committed offsets so the records not finished are read again. */
    private void rewind() {
        try {
            var assigned = consumer.assignment();
            var offsets = consumer.committed(assigned, Duration.ofSeconds(5));
            for (TopicPartition p : assigned) {
                OffsetAndMetadata offset = offsets.get(p);
                if (offset != null) {
                    consumer.seek(p, offset.offset());
                } else {
                    consumer.seekToBeginning(List.of(p));
                }
            }
        } catch (RuntimeException e) {
            log.warn("could not rewind {}: {}", topic, e.toString());
        }
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        closeAll(List.of(this));
    }

    /**
     * Closes {@code loops} side by side: each is told to stop, then each is waited for, so their last
     * commits and the closes of their clients overlap (one after the other, a process's consumers
     * took half a second each to stop).
     */
    public static void closeAll(List<ConsumerLoop> loops) {
        List<ConsumerLoop> started = new ArrayList<>();
        for (ConsumerLoop loop : loops) {
            if (loop.thread.getState() == Thread.State.NEW) {
                // Never started: the clients the loop would have closed on its way out are closed here.
                loop.consumer.close(org.apache.kafka.clients.consumer.CloseOptions.timeout(Duration.ZERO));
                loop.deadLetters.close(Duration.ZERO);
            } else {
                loop.running = false;
                loop.consumer.wakeup();
                started.add(loop);
            }
        }
        for (ConsumerLoop loop : started) {
            try {
                loop.thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
