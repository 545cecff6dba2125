package org.sagas.app.bench;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.sagas.app.EmbeddedStack;
import org.sagas.app.Settings;
import org.sagas.orchestrator.Json;
import org.sagas.orchestrator.messaging.Topics;
import org.sagas.orchestrator.ordering.OrderMessages;
import org.sagas.reconciler.LedgerPartitioning;
import org.sagas.reconciler.ReconcilerConfig;
import org.sagas.reconciler.ReconcilerStreams;

/**
 * {@code ./sagas bench reconcile [--events N]}: replays N order events (default 1 000 000: status
 * changes, charge commands, replies, ledger charges and reservations, seven per order) into a
 * broker while the reconciliation topology runs on it with {@code exactly_once_v2}; one order in a
 * hundred carries a discrepancy (the five kinds in turn). Reports events/s through the topology,
 * the time from each discrepancy's last record to its finding (p50/p99, the grace period
 * included and also given apart), whether every discrepancy was found and nothing else, and the
 * size of the state stores on disk. Writes {@code bench/results/reconcile.json}.
 */
final class ReconcileBenchmark {
    private static final int RECORDS_PER_ORDER = 7;
    /** Shorter than the product's defaults (30 s, 2 min), so that a finding's latency is not all grace. */
    private static final Duration GRACE = Duration.ofSeconds(5);
    private static final Duration UNKNOWN_ORDER_GRACE = Duration.ofSeconds(20);
    private static final String[] KINDS = {"CHARGED_NOT_CONFIRMED", "CONFIRMED_NOT_CHARGED", "AMOUNT_MISMATCH",
        "RESERVED_NOT_ORDERED", "CHARGE_WITHOUT_REPLY"};

    private final PrintStream out;
    private final int events;
    private final Map<String, String> expected = new ConcurrentHashMap<>();
    private final Map<String, Long> discrepancyAt = new ConcurrentHashMap<>();
    private final Map<String, String> found = new ConcurrentHashMap<>();
    private final Map<String, Integer> unexpected = new ConcurrentHashMap<>();
    private final Latencies replayLatencies = new Latencies();
    private final Latencies steadyLatencies = new Latencies();
    private volatile Latencies latencies = replayLatencies;
    private long cursor;
    private int sent;

    ReconcileBenchmark(PrintStream out, int events) {
        this.out = out;
        this.events = events;
    }

    void run(Settings settings, Path resultFile) throws Exception {
        try (EmbeddedStack stack = EmbeddedStack.scratch()) {
            Settings s = stack.start(settings, false, settings.embeddedKafka());
            String bootstrap = s.kafkaBootstrap();
            topics(bootstrap);
            String app = "bench-reconciler-" + UUID.randomUUID().toString().substring(0, 8);
            Path stateDir = Files.createTempDirectory("sagas-reconcile-bench-");
            ReconcilerConfig config = new ReconcilerConfig(GRACE, UNKNOWN_ORDER_GRACE, GRACE.multipliedBy(2),
                    Duration.ofMillis(100));
            int orders = events / RECORDS_PER_ORDER;
            out.printf("reconcile: %d events (%d orders, %d with a discrepancy), grace %d ms%n", orders
                    * RECORDS_PER_ORDER, orders, (orders + 99) / 100, GRACE.toMillis());
            try (ReconcilerStreams streams = new ReconcilerStreams(config, ReconcilerStreams.properties(s.kafka(), app,
                    stateDir, 0)).start()) {
                awaitRunning(streams);
                AtomicBoolean reading = new AtomicBoolean(true);
                Thread reader = new Thread(() -> readFindings(bootstrap, reading), "bench-findings");
                reader.start();
                long start = System.nanoTime();
                produce(bootstrap, orders, 0);
                double produceSeconds = (System.nanoTime() - start) / 1e9;
                out.printf("  produced in %.1f s; waiting for the topology to catch up%n", produceSeconds);
                awaitCaughtUp(bootstrap, app, Duration.ofMinutes(60));
                double processSeconds = (System.nanoTime() - start) / 1e9;
                awaitFindings();
                // Then a steady stream well within what the topology just sustained (a quarter of it, at
                // most 2 000 events/s): the time from a discrepancy to its finding with no backlog ahead.
                latencies = steadyLatencies;
                int steadyOrders = Math.max(Math.min(orders / 10, 20_000), 500);
                double steadyRate = Math.max(100, Math.min(2_000, orders * RECORDS_PER_ORDER / processSeconds / 4));
                out.printf("  steady phase: %d orders at %.0f events/s%n", steadyOrders, steadyRate);
                produce(bootstrap, steadyOrders, steadyRate / RECORDS_PER_ORDER);
                awaitCaughtUp(bootstrap, app, Duration.ofMinutes(30));
                awaitFindings();
                reading.set(false);
                reader.join(5_000);
                long orderEntries = streams.streams().store(org.apache.kafka.streams.StoreQueryParameters.fromNameAndType(
                        "order-ledger", org.apache.kafka.streams.state.QueryableStoreTypes.<String, Object>keyValueStore()))
                        .approximateNumEntries();
                streams.close(); // flushes the stores' memtables, so the files on disk hold everything
                Map<String, Long> stores = storeSizes(stateDir);
                stores.put("order-ledger entries (approximate)", orderEntries);
                write(resultFile, orders, produceSeconds, processSeconds, stores);
            } finally {
                deleteTree(stateDir);
            }
        }
    }

    private void awaitFindings() throws InterruptedException {
        long waitUntil = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        while (found.size() < expected.size() && System.nanoTime() < waitUntil) {
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    /** Sends {@code orders} orders, as fast as possible ({@code ordersPerSecond} 0) or paced. */
    private void produce(String bootstrap, int orders, double ordersPerSecond) throws InterruptedException {
        try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 10, ProducerConfig.BATCH_SIZE_CONFIG, 262_144,
                ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4"), new StringSerializer(), new ByteArraySerializer())) {
            long start = System.nanoTime();
            for (int i = 0; i < orders; i++) {
                if (ordersPerSecond > 0) {
                    long due = start + (long) (i / ordersPerSecond * 1e9);
                    long wait = due - System.nanoTime();
                    if (wait > 0) {
                        TimeUnit.NANOSECONDS.sleep(wait);
                    }
                    if (i % 50 == 0) {
                        producer.flush(); // paced: records leave now, not when a batch fills
                    }
                }
                order(producer, sent++);
                if (i > 0 && i % 20_000 == 0) {
                    out.printf("  %d orders sent, %d findings so far%n", i, found.size());
                }
            }
            producer.flush();
        }
    }

    /** One order's seven records; every hundredth order is a discrepancy of one kind, in turn. */
    private void order(KafkaProducer<String, byte[]> producer, int i) {
        String id = UUID.randomUUID().toString();
        String kind = i % 100 == 0 ? KINDS[(i / 100) % KINDS.length] : null;
        long total = 1_000 + i % 5_000;
        String chargeKey = id + ":charge";
        send(producer, Topics.ORDERS_EVENTS, id, OrderMessages.ORDER_STATUS_CHANGED, status(id, "PENDING_CONFIRMATION",
                0, total));
        if ("RESERVED_NOT_ORDERED".equals(kind)) {
            send(producer, Topics.ORDERS_EVENTS, id, OrderMessages.ORDER_STATUS_CHANGED, status(id, "REJECTED", 1,
                    total));
            send(producer, Topics.ORDERS_EVENTS, id, "OrderRejected", Map.of("orderId", id, "reason", "bench"));
        } else {
            send(producer, Topics.ORDERS_EVENTS, id, OrderMessages.ORDER_STATUS_CHANGED, status(id, "AWAITING_PAYMENT",
                    1, total));
            send(producer, Topics.PAYMENTS_COMMANDS, id, OrderMessages.CHARGE_PAYMENT, Map.of("orderId", id,
                    "customerId", "c-bench", "amountCents", total, "currency", "EUR", "idempotencyKey", chargeKey));
        }
        if ("CHARGE_WITHOUT_REPLY".equals(kind)) {
            send(producer, Topics.ORDERS_EVENTS, id, OrderMessages.ORDER_STATUS_CHANGED, status(id,
                    "PAYMENT_UNKNOWN", 2, total));
        } else if (!"RESERVED_NOT_ORDERED".equals(kind)) {
            boolean declined = "CHARGED_NOT_CONFIRMED".equals(kind);
            send(producer, Topics.PAYMENTS_EVENTS, id, declined ? OrderMessages.PAYMENT_DECLINED
                    : OrderMessages.PAYMENT_CAPTURED, Map.of("orderId", id, "idempotencyKey", chargeKey));
            send(producer, Topics.ORDERS_EVENTS, id, OrderMessages.ORDER_STATUS_CHANGED, status(id, declined
                    ? "CANCELLED" : "CONFIRMED", 3, total));
        }
        if (!"CHARGE_WITHOUT_REPLY".equals(kind) && !"RESERVED_NOT_ORDERED".equals(kind)) {
            String ledgerStatus = "CONFIRMED_NOT_CHARGED".equals(kind) ? "DECLINED" : "CAPTURED";
            long amount = "AMOUNT_MISMATCH".equals(kind) ? total + 1 : total;
            send(producer, Topics.LEDGER_CHARGES, chargeKey, "ChargeChanged", Map.of("idempotencyKey", chargeKey,
                    "orderId", id, "amountCents", amount, "currency", "EUR", "status", ledgerStatus,
                    "cursor", "1." + (++cursor)));
        }
        // A cancelled order's stock was released; every other order holds its reservation.
        String reservation = "CHARGED_NOT_CONFIRMED".equals(kind) ? "RELEASED" : "RESERVED";
        send(producer, Topics.LEDGER_RESERVATIONS, id + ":reserve", "ReservationChanged", Map.of("key",
                id + ":reserve", "orderId", id, "status", reservation, "lines", List.of(), "cursor",
                "1." + (++cursor)));
        if (kind != null) {
            expected.put(id, kind);
            discrepancyAt.put(id, System.currentTimeMillis());
        }
    }

    private static Map<String, Object> status(String id, String status, int version, long total) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("orderId", id);
        m.put("customerId", "c-bench");
        m.put("status", status);
        m.put("reason", "bench");
        m.put("totalCents", total);
        m.put("currency", "EUR");
        m.put("sagaVersion", version);
        return m;
    }

    private static void send(KafkaProducer<String, byte[]> producer, String topic, String key, String type,
            Object body) {
        // The ledger topics are keyed by entry and partitioned by order, as the ledger puller writes them.
        String orderId = ((Map<?, ?>) body).get("orderId").toString();
        ProducerRecord<String, byte[]> r = new ProducerRecord<>(topic, LedgerPartitioning.partition(orderId, 4), key,
                Json.write(body).getBytes(StandardCharsets.UTF_8));
        r.headers().add(Topics.MESSAGE_ID, UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
        r.headers().add(Topics.MESSAGE_TYPE, type.getBytes(StandardCharsets.UTF_8));
        producer.send(r);
    }

    private void readFindings(String bootstrap, AtomicBoolean reading) {
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.GROUP_ID_CONFIG,
                "bench-findings-" + UUID.randomUUID(), ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"), new StringDeserializer(),
                new StringDeserializer())) {
            consumer.subscribe(List.of(Topics.RECONCILIATION_FINDINGS));
            while (reading.get()) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(100))) {
                    long now = System.currentTimeMillis();
                    JsonNode f = read(r.value());
                    if (!"OPEN".equals(f.path("state").asText())) {
                        continue;
                    }
                    String kind = f.path("kind").asText();
                    if (kind.equals(expected.get(r.key())) && found.putIfAbsent(r.key(), kind) == null) {
                        latencies.add((now - discrepancyAt.get(r.key())) * 1_000);
                    } else if (unexpected.merge(kind, 1, Integer::sum) <= 2) {
                        out.println("  unexpected finding: " + r.value());
                    }
                }
            }
        }
    }

    private static JsonNode read(String json) {
        try {
            return Json.mapper().readTree(json);
        } catch (IOException e) {
            throw new IllegalStateException("unreadable finding: " + json, e);
        }
    }

    private void awaitCaughtUp(String bootstrap, String group, Duration within) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            long end = System.nanoTime() + within.toNanos();
            while (System.nanoTime() < end) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata().get(10, TimeUnit.SECONDS);
                Map<TopicPartition, OffsetSpec> latest = new LinkedHashMap<>();
                committed.keySet().forEach(tp -> latest.put(tp, OffsetSpec.latest()));
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> ends = admin.listOffsets(latest).all()
                        .get(10, TimeUnit.SECONDS);
                long lag = 0;
                for (var e : committed.entrySet()) {
                    lag += Math.max(0, ends.get(e.getKey()).offset() - e.getValue().offset());
                }
                Set<String> sources = Set.of(Topics.ORDERS_EVENTS, Topics.PAYMENTS_COMMANDS, Topics.PAYMENTS_EVENTS,
                        Topics.LEDGER_CHARGES, Topics.LEDGER_RESERVATIONS);
                boolean allSources = committed.keySet().stream().map(TopicPartition::topic).collect(
                        java.util.stream.Collectors.toSet()).containsAll(sources);
                if (allSources && lag == 0) {
                    return;
                }
                TimeUnit.MILLISECONDS.sleep(200);
            }
            throw new IllegalStateException("the topology did not catch up within " + within);
        }
    }

    private static void awaitRunning(ReconcilerStreams streams) throws InterruptedException {
        long end = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (streams.state() != org.apache.kafka.streams.KafkaStreams.State.RUNNING) {
            if (System.nanoTime() > end) {
                throw new IllegalStateException("the topology did not start: " + streams.state());
            }
            TimeUnit.MILLISECONDS.sleep(100);
        }
    }

    private static void topics(String bootstrap) throws Exception {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = Topics.all().stream().filter(t -> !existing.contains(t))
                    .map(t -> new NewTopic(t, Optional.of(4), Optional.empty()).configs(Topics.compacted(t)
                            ? Map.of("cleanup.policy", "compact") : Map.of())).toList();
            admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
        }
    }

    /** Bytes on disk per state store (RocksDB files, window segments), summed over tasks. */
    private static Map<String, Long> storeSizes(Path stateDir) throws IOException {
        Map<String, Long> sizes = new TreeMap<>();
        List<String> stores = List.of("order-ledger", "due-checks", "seen-message-ids");
        try (Stream<Path> files = Files.walk(stateDir)) {
            files.filter(Files::isRegularFile).forEach(f -> {
                String path = f.toString();
                String store = stores.stream().filter(path::contains).findFirst().orElse("other");
                sizes.merge(store, f.toFile().length(), Long::sum);
            });
        }
        return sizes;
    }

    private void write(Path resultFile, int orders, double produceSeconds, double processSeconds,
            Map<String, Long> stores) throws IOException {
        int total = orders * RECORDS_PER_ORDER;
        long storeBytes = stores.entrySet().stream().filter(e -> !e.getKey().contains("entries"))
                .mapToLong(Map.Entry::getValue).sum();
        Map<String, Object> r = new LinkedHashMap<>();
        r.put("benchmark", "reconcile");
        r.put("at", Instant.now().toString());
        r.put("command", "./sagas bench reconcile --events " + events);
        r.put("events", total);
        r.put("orders", orders);
        r.put("steady_phase_orders", sent - orders);
        r.put("discrepancies", expected.size());
        r.put("findings_of_the_right_kind", found.size());
        r.put("missed", expected.size() - found.size());
        r.put("unexpected_findings", unexpected);
        r.put("events_per_second", Math.round(total / processSeconds));
        r.put("produce_seconds", round(produceSeconds));
        r.put("process_seconds", round(processSeconds));
        r.put("grace_ms", GRACE.toMillis());
        r.put("unknown_order_grace_ms", UNKNOWN_ORDER_GRACE.toMillis());
        r.put("reply_window_ms", GRACE.multipliedBy(2).toMillis());
        r.put("discrepancy_to_finding_p50_ms", round(steadyLatencies.percentileMillis(50)));
        r.put("discrepancy_to_finding_p99_ms", round(steadyLatencies.percentileMillis(99)));
        r.put("discrepancy_to_finding_max_ms", round(steadyLatencies.maxMillis()));
        r.put("discrepancy_to_finding_measured_on", "a steady stream at a quarter of the replay's rate (at most"
                + " 2 000 events/s), "
                + steadyLatencies.count() + " discrepancies; the grace is included");
        r.put("during_replay_discrepancy_to_finding_p50_ms", round(replayLatencies.percentileMillis(50)));
        r.put("during_replay_discrepancy_to_finding_p99_ms", round(replayLatencies.percentileMillis(99)));
        r.put("state_store_bytes", storeBytes);
        r.put("state_store_bytes_by_store", stores);
        r.put("processing_guarantee", "at_least_once");
        r.put("machine", Runtime.getRuntime().availableProcessors() + " cores, broker and topology on this machine");
        Files.createDirectories(resultFile.getParent());
        Files.writeString(resultFile, Json.mapper().writerWithDefaultPrettyPrinter().writeValueAsString(r));
        out.printf("  events/s %d; discrepancy -> finding p50 %.0f ms, p99 %.0f ms (steady, grace %d ms included;"
                + " during the replay p50 %.0f ms); found %d of %d, unexpected %s; state stores %.1f MB%n",
                Math.round(total / processSeconds), steadyLatencies.percentileMillis(50),
                steadyLatencies.percentileMillis(99), GRACE.toMillis(), replayLatencies.percentileMillis(50),
                found.size(), expected.size(), unexpected, storeBytes / 1e6);
        out.println("  written to " + resultFile);
    }

    private static double round(double v) {
        return Math.round(v * 10) / 10.0;
    }

    private static void deleteTree(Path dir) {
        try (Stream<Path> files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // a temp directory left behind is not worth failing the benchmark for
        }
    }
}
