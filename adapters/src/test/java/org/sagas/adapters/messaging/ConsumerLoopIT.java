package org.sagas.adapters.messaging;

import org.sagas.orchestrator.messaging.KafkaConnection;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.testkit.RealInfrastructure;
import org.sagas.testkit.TestInfra;

/** The consumer loop's batches on a real broker: bounded, in order, a bad record holding up only itself. */
@RealInfrastructure
class ConsumerLoopIT {
    private static final int RECORDS = 45;
    private static final int POISON = 3;
    private static final int FLAKY = 26;

    @Test
    void shouldHandleEachRecordOnceInBoundedBatchesAndSetAsideOnlyTheBadOnes(TestInfra infra) {
        // Given 45 records in one partition: one the handler rejects, one whose effect fails twice
        String topic = infra.createTopic(infra.topic("loop"), 1);
        infra.createTopic(Topics.deadLetter(topic), 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < RECORDS; i++) {
                producer.send(new ProducerRecord<>(topic, "k" + i, i == POISON ? "poison" : "ok"));
            }
        }
        List<String> effects = new CopyOnWriteArrayList<>();
        List<Integer> batches = new CopyOnWriteArrayList<>();
        Map<String, AtomicInteger> attempts = new ConcurrentHashMap<>();
        List<Integer> flakyBatches = new CopyOnWriteArrayList<>();
        AtomicInteger yields = new AtomicInteger();
        ConsumerLoop.BatchHandler handler = records -> {
            batches.add(records.size());
            List<ConsumerLoop.Rejected> rejected = new ArrayList<>();
            List<String> done = new ArrayList<>();
            for (ConsumerRecord<String, byte[]> r : records) {
                if ("poison".equals(new String(r.value(), StandardCharsets.UTF_8))) {
                    rejected.add(new ConsumerLoop.Rejected(r, "cannot read k" + POISON));
                    continue;
                }
                if (r.key().equals("k" + FLAKY)) {
                    flakyBatches.add(records.size());
                    if (attempts.computeIfAbsent(r.key(), k -> new AtomicInteger()).incrementAndGet() <= 2) {
                        throw new IllegalStateException("database unavailable"); // nothing of the batch stays
                    }
                }
                done.add(r.key());
            }
            effects.addAll(done); // the batch's "transaction" commits
            return rejected;
        };

        // When the loop consumes them
        try (ConsumerLoop loop = new ConsumerLoop(KafkaConnection.plaintext(infra.bootstrapServers()), "loop-" + UUID.randomUUID(), topic,
                handler, oldest -> yields.incrementAndGet(), new SimpleMeterRegistry()).start()) {
            await().atMost(Duration.ofSeconds(30)).until(() -> effects.size() == RECORDS - 1);

            // Then every good record took effect exactly once, in batches of at most 20, the others in
            // order without waiting for the failing one, which took effect after two retries, and the
            // rejected one not at all
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                if (i != POISON && i != FLAKY) {
                    expected.add("k" + i);
                }
            }
            assertThat(effects.stream().filter(k -> !k.equals("k" + FLAKY)).toList()).containsExactlyElementsOf(
                    expected);
            assertThat(effects).containsOnlyOnce("k" + FLAKY);
            assertThat(effects.indexOf("k" + FLAKY)).as("set aside, not waited for").isGreaterThan(FLAKY);
            assertThat(batches).allSatisfy(size -> assertThat(size).isBetween(1, ConsumerLoop.MAX_BATCH));
            assertThat(batches).anySatisfy(size -> assertThat(size).isGreaterThan(1));
            assertThat(attempts.get("k" + FLAKY)).hasValue(3);
            // the failed batch was handled again record by record: the failing one alone
            assertThat(IntStream.range(1, flakyBatches.size())
                    .anyMatch(i -> flakyBatches.get(i - 1) > 1 && flakyBatches.get(i) == 1)).as("batch sizes %s",
                    flakyBatches).isTrue();
            // every batch of fresh records waited its turn first; the one retry from the side did not
            assertThat(yields.get()).isEqualTo(batches.size() - 1);

            // And the rejected record is on the dead-letter topic with its reason
            ConsumerRecord<String, byte[]> dead = readOne(infra.bootstrapServers(), Topics.deadLetter(topic));
            assertThat(dead.key()).isEqualTo("k" + POISON);
            assertThat(new String(dead.headers().lastHeader(Topics.DLT_REASON).value(), StandardCharsets.UTF_8))
                    .isEqualTo("cannot read k" + POISON);
        }
    }

    @Test
    void shouldSetAsideARecordThatKeepsFailingThenDeadLetterItWhileTwoHundredOthersGoOn(TestInfra infra)
            throws Exception {
        // Given 201 records on two partitions, one of which (key "poison") always fails to take effect
        String topic = infra.createTopic(infra.topic("poison"), 2);
        infra.createTopic(Topics.deadLetter(topic), 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 201; i++) {
                producer.send(new ProducerRecord<>(topic, i == 7 ? "poison" : "order-" + i, "reply " + i)).get();
            }
        }
        Map<String, Long> effects = new ConcurrentHashMap<>();
        AtomicInteger poisonAttempts = new AtomicInteger();
        List<String> toldAbout = new CopyOnWriteArrayList<>();
        String group = "poison-" + UUID.randomUUID();
        ConsumerLoop.BatchHandler handler = records -> {
            for (ConsumerRecord<String, byte[]> r : records) {
                if (r.key().equals("poison")) {
                    poisonAttempts.incrementAndGet();
                    throw new IllegalStateException("saga data unreadable");
                }
            }
            records.forEach(r -> effects.merge(r.key(), System.nanoTime(), (a, b) -> a));
            return List.of();
        };
        Duration retryFor = Duration.ofSeconds(3);
        long started = System.nanoTime();

        // When the loop consumes them, retrying a failing record for 3 s
        try (ConsumerLoop loop = new ConsumerLoop(KafkaConnection.plaintext(infra.bootstrapServers()), group, topic, handler, ConsumerLoop.BatchGate.NONE,
                new SimpleMeterRegistry(), retryFor, (record, reason, cause) -> toldAbout.add(record.key() + " " + cause + ": " + reason))
                .start()) {
            // Then the 200 others take effect while the poison is still being retried
            await().atMost(Duration.ofSeconds(30)).until(() -> effects.size() == 200);
            long othersDone = System.nanoTime();
            assertThat(toldAbout).as("not yet given up on").isEmpty();

            // And the poison goes to the dead-letter topic with its reason, its listener told once,
            // after it failed for the bound and was tried several times
            ConsumerRecord<String, byte[]> dead = readOne(infra.bootstrapServers(), Topics.deadLetter(topic));
            long deadAt = System.nanoTime();
            assertThat(dead.key()).isEqualTo("poison");
            assertThat(new String(dead.headers().lastHeader(Topics.DLT_REASON).value(), StandardCharsets.UTF_8))
                    .contains("kept failing").contains("saga data unreadable");
            assertThat(toldAbout).singleElement().satisfies(t -> assertThat(t).startsWith("poison FAILING: "));
            assertThat(poisonAttempts.get()).isGreaterThanOrEqualTo(4);
            assertThat(Duration.ofNanos(deadAt - started)).isGreaterThanOrEqualTo(retryFor);
            assertThat(othersDone).isLessThan(deadAt);
            assertThat(effects).doesNotContainKey("poison");

            // And the group's offsets move past it, so a restart does not read it again
            await().atMost(Duration.ofSeconds(10)).until(() -> committedTotal(infra.bootstrapServers(), group, topic)
                    == 201);
        }
    }

    @Test
    void shouldKeepARecordLeftForAnotherProcessPastTheRetryBoundWithoutDeadLetteringOrCommittingPastIt(
            TestInfra infra) throws Exception {
        // Given five records in one partition, the second for a saga version this process lacks for now
        String topic = infra.createTopic(infra.topic("versions"), 1);
        infra.createTopic(Topics.deadLetter(topic), 1);
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, infra.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < 5; i++) {
                producer.send(new ProducerRecord<>(topic, i == 1 ? "v2" : "order-" + i, "reply " + i)).get();
            }
        }
        java.util.concurrent.atomic.AtomicBoolean hasVersion = new java.util.concurrent.atomic.AtomicBoolean();
        AtomicInteger handedBack = new AtomicInteger();
        List<String> effects = new CopyOnWriteArrayList<>();
        List<String> toldAbout = new CopyOnWriteArrayList<>();
        String group = "versions-" + UUID.randomUUID();
        ConsumerLoop.BatchHandler handler = records -> {
            List<ConsumerLoop.Rejected> left = new ArrayList<>();
            for (ConsumerRecord<String, byte[]> r : records) {
                if (r.key().equals("v2") && !hasVersion.get()) {
                    handedBack.incrementAndGet();
                    left.add(new ConsumerLoop.Rejected(r, "not this version",
                            ConsumerLoop.Fate.LEFT_FOR_ANOTHER_PROCESS));
                } else {
                    effects.add(r.key());
                }
            }
            return left;
        };
        Duration retryFor = Duration.ofSeconds(1);
        long started = System.nanoTime();

        // When the loop consumes them, retrying a failing record for 1 s
        try (ConsumerLoop loop = new ConsumerLoop(KafkaConnection.plaintext(infra.bootstrapServers()), group, topic,
                handler, ConsumerLoop.BatchGate.NONE, new SimpleMeterRegistry(), retryFor,
                (record, reason, cause) -> toldAbout.add(record.key())).start()) {
            // Then the others take effect, and the left one is handed back well past the bound, never
            // dead-lettered, the group's offset held before it
            await().atMost(Duration.ofSeconds(30)).until(() -> effects.size() == 4 && handedBack.get() >= 5);
            assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThan(retryFor);
            assertThat(toldAbout).isEmpty();
            assertThat(committedTotal(infra.bootstrapServers(), group, topic)).isLessThanOrEqualTo(1);

            // When the process has the version (as a newer process reading the partition would)
            hasVersion.set(true);

            // Then it takes effect once and the offsets move past it
            await().atMost(Duration.ofSeconds(30)).until(() -> effects.contains("v2"));
            assertThat(effects).containsOnlyOnce("v2");
            await().atMost(Duration.ofSeconds(10)).until(() -> committedTotal(infra.bootstrapServers(), group, topic)
                    == 5);
            assertThat(toldAbout).isEmpty();
        }
    }

    private static long committedTotal(String bootstrap, String group, String topic) {
        try (var admin = org.apache.kafka.clients.admin.Admin.create(Map.of(
                org.apache.kafka.clients.admin.AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            return admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get().entrySet().stream()
                    .filter(e -> e.getKey().topic().equals(topic)).mapToLong(e -> e.getValue().offset()).sum();
        } catch (Exception e) {
            return -1;
        }
    }

    private static ConsumerRecord<String, byte[]> readOne(String bootstrap, String topic) {
        try (KafkaConsumer<String, byte[]> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.GROUP_ID_CONFIG,
                "reader-" + UUID.randomUUID(), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"),
                new StringDeserializer(), new ByteArrayDeserializer())) {
            consumer.subscribe(List.of(topic));
            List<ConsumerRecord<String, byte[]>> read = new ArrayList<>();
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                consumer.poll(Duration.ofMillis(200)).forEach(read::add);
                return !read.isEmpty();
            });
            assertThat(read).hasSize(1);
            return read.get(0);
        }
    }
}
