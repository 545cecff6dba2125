package org.sagas.reconciler;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.sagas.orchestrator.messaging.Topics;

/** The product's topics on the test broker, and reading them back. */
final class KafkaTopics {
    private KafkaTopics() {}

    /** Creates the product's topics that are missing, 4 partitions each (as the product does). */
    static void ensure(String bootstrap) {
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            List<NewTopic> missing = Topics.all().stream().filter(t -> !existing.contains(t))
                    .map(t -> new NewTopic(t, Optional.of(4), Optional.empty()).configs(Topics.compacted(t)
                            ? Map.of("cleanup.policy", "compact") : Map.of())).toList();
            if (!missing.isEmpty()) {
                admin.createTopics(missing).all().get(30, TimeUnit.SECONDS);
            }
        } catch (Exception e) {
            throw new IllegalStateException("could not create the topics", e);
        }
    }

    /** Every committed record of {@code topic} whose key passes {@code keys}, read for {@code within}. */
    static List<ConsumerRecord<String, String>> read(String bootstrap, String topic, Predicate<String> keys,
            int expected, Duration within) {
        List<ConsumerRecord<String, String>> found = new ArrayList<>();
        try (var consumer = new KafkaConsumer<String, String>(Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.GROUP_ID_CONFIG, "test-reader-" + UUID.randomUUID(),
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false), new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of(topic));
            long end = System.nanoTime() + within.toNanos();
            // Reads for the whole time even after reaching {@code expected}: a duplicate would come after.
            while (System.nanoTime() < end) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.key() != null && keys.test(r.key())) {
                        found.add(r);
                    }
                }
                if (found.size() > expected) {
                    break;
                }
            }
        }
        return found;
    }

    static String header(ConsumerRecord<String, String> r, String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
